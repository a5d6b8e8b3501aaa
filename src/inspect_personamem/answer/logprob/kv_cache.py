"""The attention cache the shared-prefix path keeps (`hf.py`), written in place.

transformers' `DynamicLayer` appends by `torch.cat`, copying the whole cache on every
pass after cached tokens (twice a question: the new tail, then the options).
`ReservedLayer` writes a pass's own keys and values only, into a buffer that grows by
`CACHE_GROWTH` when a pass would overflow it, a copy counted in `Copied` (and from there
in `ForwardStats.cache_copies`, `copied_bytes`). A cache can be cut back to a prefix
only where every layer keeps all past positions (`croppable`): not a sliding-window or
linear-attention layer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

CACHE_GROWTH = 1.5
"""A kept cache's buffer is reserved for this multiple of the tokens it must hold (at
most the model's positions): the questions of one context add a tail each, and a buffer
grown by a factor is copied a few times a context rather than on every pass."""


def cache_bytes(cache: Any) -> int:
    """The bytes of the keys and values `cache` holds (for a `ReservedLayer`, what it
    holds, not its buffer)."""
    return sum(
        tensor.numel() * tensor.element_size()
        for layer in cache.layers
        for tensor in (layer.keys, layer.values)
        if tensor is not None
    )


@dataclass
class Copied:
    """Bytes of cached keys and values copied so far, counted by a cache's layers."""

    bytes: int = 0


def reserved_cache(config: Any, copied: Copied, expected: int) -> DynamicCache:
    """A cache for `config`'s model (full attention in every layer) whose layers are
    `ReservedLayer`s sized for `expected` tokens at least (a prefix run in chunks fills
    its buffer without outgrowing it), counting their copies in `copied`."""
    cache = DynamicCache(config=config)
    limit = getattr(config, "max_position_embeddings", None)
    cache.layers = [ReservedLayer(limit, copied, expected) for _ in cache.layers]
    return cache


class ReservedLayer(DynamicLayer):  # type: ignore[no-untyped-call]
    """A full-attention cache layer whose keys and values are written in place into a
    buffer reserved ahead; `keys` and `values` are views of its first `length` positions.

    transformers' `DynamicLayer` appends by `torch.cat`, so each pass after cached tokens
    copies the whole layer's cache to a new tensor (and allocates one of a new size: on
    CUDA, allocator churn). Here a pass writes its own tokens only; cutting back shortens
    the view. When a pass would overflow the buffer, a new one of `CACHE_GROWTH` times
    the tokens needed (at most `limit`, the model's positions, unless more are needed)
    takes the cached entries over, a copy counted in `copied`. The first buffer is sized
    for `expected` tokens at least.
    """

    def __init__(self, limit: int | None, copied: Copied, expected: int = 0) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.limit = limit
        self.copied = copied
        self.expected = expected
        self.length = 0
        self._key_buffer: torch.Tensor | None = None
        self._value_buffer: torch.Tensor | None = None

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.device = key_states.device
            self.is_initialized = True
        end = self.length + key_states.shape[-2]
        if self._key_buffer is None:
            self._grow(key_states, value_states, max(end, self.expected))
        elif end > self._key_buffer.shape[-2]:
            self._grow(key_states, value_states, end)
        assert self._key_buffer is not None and self._value_buffer is not None
        self._key_buffer[..., self.length : end, :].copy_(key_states)
        self._value_buffer[..., self.length : end, :].copy_(value_states)
        self._set_length(end)
        return self.keys, self.values  # type: ignore[return-value]

    def crop(self, tokens_to_remove: int) -> None:
        """Drop the last `-tokens_to_remove` positions (a negative count, as transformers')."""
        if tokens_to_remove > 0:
            raise ValueError("crop takes a negative count: the positions to drop")
        if self.is_initialized:
            self._set_length(self.length + tokens_to_remove)

    def reset(self) -> None:
        self._key_buffer = self._value_buffer = None
        self.length = 0
        super().reset()

    def _grow(self, key_states: torch.Tensor, value_states: torch.Tensor, needed: int) -> None:
        capacity = math.ceil(needed * CACHE_GROWTH)
        if self.limit is not None:
            capacity = max(needed, min(capacity, self.limit))
        keys = key_states.new_empty((*key_states.shape[:-2], capacity, key_states.shape[-1]))
        values = value_states.new_empty(
            (*value_states.shape[:-2], capacity, value_states.shape[-1])
        )
        if self.length:
            assert self.keys is not None and self.values is not None
            keys[..., : self.length, :].copy_(self.keys)
            values[..., : self.length, :].copy_(self.values)
            self.copied.bytes += sum(t.numel() * t.element_size() for t in (self.keys, self.values))
        self._key_buffer, self._value_buffer = keys, values

    def _set_length(self, length: int) -> None:
        assert self._key_buffer is not None and self._value_buffer is not None
        self.length = length
        self.keys = self._key_buffer[..., :length, :]
        self.values = self._value_buffer[..., :length, :]


def croppable(cache: Any) -> bool:
    """Whether every layer of `cache` keeps all past positions, so it can be cut back."""
    return not any(getattr(cache, "is_sliding", ())) and not any(getattr(cache, "is_linear", ()))


def croppable_model(model: Any) -> bool | None:
    """Whether the model's cache can be cut back, from the empty cache its config makes;
    None where this transformers cannot say before a cache exists."""
    try:
        return croppable(DynamicCache(config=model.config))
    except (TypeError, ValueError, AttributeError):
        return None
