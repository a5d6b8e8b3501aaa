"""Option log-probabilities from a transformers causal LM, sharing the prefix's KV cache.

Per question the prefix (history, question, assistant header) runs through the model
once and its attention cache is reused for the options.

- Prefill. With nothing reused the prefix runs as one causal pass with no attention
  mask, which SDPA serves with its fastest (flash) kernel; `prefill_chunk` splits it
  into passes of that many tokens to bound activation memory. A pass after cached
  tokens (a later chunk, or the new tail of a prefix that reuses the previous
  question's cache) needs bottom-right-aligned causal attention; transformers builds
  it as an explicit mask, which keeps SDPA off the flash kernel, so on CUDA such passes
  go through `torch.nn.attention.bias.causal_lower_right` instead (see
  `_shared_prefix_attention`).
- Options. All options of a question run as one packed sequence on the prefix's cache:
  each option's tokens at the positions right after the prefix, with a mask that lets
  a token see the prefix and the earlier tokens of its own option only. No copy of the
  cache is made and no padding is run; the cache is then cut back to the prefix.
  Models that cannot take such a mask (attention other than sdpa or eager) or whose
  cache cannot be cut back run the options as one right-padded batch on copies of the
  cache instead (`option_batch_size` at a time, to bound memory; padding sits after
  each option's tokens, so causal attention never lets a real token see it).

The cache the shared path keeps is written in place (`ReservedLayer`): a pass after
cached tokens writes its own keys and values only, where transformers' `DynamicLayer`
concatenates, copying the whole cache on every pass (twice a question: the new tail,
then the options). Its buffer grows by `CACHE_GROWTH` when a pass would overflow it, a
copy the stats count (`ForwardStats.cache_copies`, `copied_bytes`), as they count the
copies the padded route makes.

Across questions the cache is kept: the next question's prefix reuses the longest
common token prefix with the previous one, for two questions of one shared context
their history up to the earlier end index, so only the new tail is run (when that
saves time: see MIN_REUSE). This needs the questions of a context to arrive one after
another (the datasets are ordered by context) and a cache that can be cut back (full
attention). A sliding-window (or linear-attention) layer forgets what lies before its
window, so it cannot be cut back: for such models the options run on a copy of the
prefix's cache, and nothing is kept across questions.

`naive_option_logprobs` is the reference: one full forward pass per option.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

from inspect_personamem.answer.logprob.stats import ForwardStats, Scored
from inspect_personamem.answer.logprob.template import OptionPrompt, common_prefix_length

CACHE_GROWTH = 1.5
"""A kept cache's buffer is reserved for this multiple of the tokens it must hold (at
most the model's positions): the questions of one context add a tail each, and a buffer
grown by a factor is copied a few times a context rather than on every pass."""

MIN_REUSE = 0.25
"""A kept cache is used only when it covers this share of the new prefix: a small reuse
(another context: only the first few template tokens in common) saves nothing, and a
fresh start frees the old cache before the new one grows (and, where the attention
after a cache needs an explicit mask, runs faster per token)."""

FAST_ATTENTION = "personamem_shared_prefix"
"""The name `_shared_prefix_attention` is registered under in transformers, and set as
the model's attention implementation for the length of each call."""

LOWER_RIGHT_DEVICES = ("cuda",)
"""Devices on which a pass after cached tokens uses SDPA's bottom-right causal bias
rather than an explicit mask (elsewhere PyTorch would build the same mask itself)."""

_UNLIMITED = 10**9
"""Tokenizers without a real limit report a huge `model_max_length`."""


def context_window(model: Any, tokenizer: Any) -> int:
    """The positions the model can attend to: the smaller of the model's and the tokenizer's."""
    limits = [
        int(value)
        for value in (
            getattr(model.config, "max_position_embeddings", None),
            getattr(tokenizer, "model_max_length", None),
        )
        if value is not None and 0 < int(value) < _UNLIMITED
    ]
    if not limits:
        raise ValueError(
            "neither the model config nor the tokenizer states a context window; "
            "set the task parameter context_window"
        )
    return min(limits)


class SharedPrefixLogprobs:
    """Option log-probabilities after a prefix computed once, keeping the cache for the
    next prefix.

    Args:
        model: A transformers causal LM.
        tokenizer: Its tokenizer (for the padding id).
        option_batch_size: Options run in one pass (packed, or padded on copies of the
            cache where packing is not possible).
        prefill_chunk: The most prefix tokens run in one pass; None: the whole prefix
            (or its new tail) at once.
        fast_attention: Use `_shared_prefix_attention` (bottom-right causal attention
            without a mask after cached tokens; options' grouped-query attention
            without copying the cache) where the model's attention is sdpa.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        option_batch_size: int = 4,
        prefill_chunk: int | None = None,
        fast_attention: bool = True,
    ) -> None:
        if option_batch_size < 1 or (prefill_chunk is not None and prefill_chunk < 1):
            raise ValueError("option_batch_size and prefill_chunk must be at least 1")
        self.model = model
        self.pad_id = int(tokenizer.pad_token_id or tokenizer.eos_token_id or 0)
        self.option_batch_size = option_batch_size
        self.prefill_chunk = prefill_chunk
        self.stats = ForwardStats()
        self._cache: Any = None
        self._copied = Copied()
        self._cached: tuple[int, ...] = ()
        config = model.config
        attention = getattr(config, "_attn_implementation", None)
        self.croppable = _croppable_model(model)
        """Every layer keeps all past positions (None: unknown until a cache exists)."""
        self.packed = bool(self.croppable) and attention in ("sdpa", "eager")
        """Options run as one packed sequence (else padded, on copies of the cache)."""
        self.fast_attention = (
            fast_attention and self.packed and attention == "sdpa" and not config.sub_configs
        )

    def reset(self) -> None:
        """Forget the kept cache (frees its memory)."""
        self._cache, self._cached = None, ()

    def option_logprobs(self, prompt: OptionPrompt) -> Scored:
        """Per option, the log-probability of each of its tokens after the prefix."""
        call = ForwardStats()
        try:
            with torch.inference_mode(), self._attention():
                last_logits = self._prefill(prompt.prefix, call)
                croppable = self.croppable
                if croppable is None:
                    croppable = _croppable(self._cache)
                results: list[list[float]] = []
                for start in range(0, len(prompt.options), self.option_batch_size):
                    batch = prompt.options[start : start + self.option_batch_size]
                    if self.packed:
                        results += self._packed(batch, last_logits, call)
                    else:
                        results += self._padded(batch, last_logits, call, croppable)
                if not croppable:
                    self.reset()
        except BaseException:
            self.reset()  # a failure midway leaves the cache in an unknown state
            raise
        finally:
            self.stats.add(call)
        return Scored(results, call)

    @contextmanager
    def _attention(self) -> Iterator[None]:
        """The model's attention implementation set to `FAST_ATTENTION` for the call."""
        if not self.fast_attention:
            yield
            return
        config = self.model.config
        previous = config._attn_implementation
        config._attn_implementation = FAST_ATTENTION
        try:
            yield
        finally:
            config._attn_implementation = previous

    def _prefill(self, prefix: tuple[int, ...], stats: ForwardStats) -> torch.Tensor:
        """Bring the cache to `prefix` (reusing what it shares with the cached prefix);
        return the logits after its last token."""
        common = common_prefix_length(self._cached, prefix)
        reuse = min(common, len(prefix) - 1)  # the last token must run to give logits
        if reuse < MIN_REUSE * len(prefix):
            reuse = 0
        if reuse > 0:
            if reuse < len(self._cached):
                self._cache.crop(reuse - len(self._cached))
        else:
            self.reset()
            if self.packed:
                self._cache = reserved_cache(self.model.config, self._copied, len(prefix))
        self._cached = prefix[:reuse]
        stats.reused_tokens += reuse
        chunk_size = self.prefill_chunk or len(prefix)
        logits: torch.Tensor | None = None
        for start in range(reuse, len(prefix), chunk_size):
            chunk = prefix[start : start + chunk_size]
            output = self._forward(
                stats,
                input_ids=torch.tensor([chunk], device=self.model.device),
                past_key_values=self._cache,
                use_cache=True,
                logits_to_keep=1,
            )
            self._cache = output.past_key_values
            self._cached = prefix[: start + len(chunk)]
            logits = output.logits[0, -1]
        assert logits is not None
        return logits

    def _forward(self, stats: ForwardStats, **inputs: Any) -> Any:
        """One forward pass, counted in `stats` (its tokens, padding included; a copy
        of the cache its layers made while growing)."""
        before = self._copied.bytes
        output = self.model(**inputs)
        stats.passes += 1
        stats.forward_tokens += inputs["input_ids"].numel()
        if self._copied.bytes > before:
            stats.cache_copies += 1
            stats.copied_bytes += self._copied.bytes - before
        return output

    def _packed(
        self, options: Sequence[tuple[int, ...]], last_logits: torch.Tensor, stats: ForwardStats
    ) -> list[list[float]]:
        """Run `options` as one sequence after the prefix, each seeing the prefix and its
        own tokens only, then cut the cache back to the prefix."""
        device = self.model.device
        past = len(self._cached)
        lengths = [len(option) for option in options]
        total = sum(lengths)
        ids = torch.tensor([[token for option in options for token in option]], device=device)
        positions = torch.tensor(
            [[past + i for length in lengths for i in range(length)]], device=device
        )
        output = self._forward(
            stats,
            input_ids=ids,
            position_ids=positions,
            attention_mask=packed_mask(lengths, past, self.model.dtype, device),
            past_key_values=self._cache,
            use_cache=True,
        )
        self._cache.crop(-total)
        logits, targets, start = [], [], 0
        for length in lengths:
            # the first token follows the prefix; each other one the token before it
            logits += [last_logits[None], output.logits[0, start : start + length - 1]]
            targets.append(ids[:, start : start + length])
            start += length
        values = _gathered(torch.cat(logits)[None], torch.cat(targets, dim=1), [total])[0]
        return _split(values, lengths)

    def _padded(
        self,
        options: Sequence[tuple[int, ...]],
        last_logits: torch.Tensor,
        stats: ForwardStats,
        croppable: bool,
    ) -> list[list[float]]:
        """Run `options` as one right-padded batch on the prefix's cache, then cut the
        cache back to the prefix; a cache that cannot be cut back is copied instead."""
        width = max(len(option) for option in options)
        ids = torch.full((len(options), width), self.pad_id, dtype=torch.long)
        for row, option in enumerate(options):
            ids[row, : len(option)] = torch.tensor(option)
        ids = ids.to(self.model.device)
        cache = self._cache
        if not croppable:
            cache = copy.deepcopy(cache)
            _count_copy(stats, cache)
        if len(options) > 1:
            cache.batch_repeat_interleave(len(options))
            _count_copy(stats, cache)
        output = self._forward(stats, input_ids=ids, past_key_values=cache, use_cache=True)
        if croppable:
            if len(options) > 1:
                cache.batch_select_indices(torch.tensor([0], device=ids.device))
                _count_copy(stats, cache)
            cache.crop(-width)
        logits = torch.cat([last_logits.expand(len(options), 1, -1), output.logits[:, :-1]], dim=1)
        return _gathered(logits, ids, [len(option) for option in options])


def _count_copy(stats: ForwardStats, cache: Any) -> None:
    """Count a copy of `cache` (the bytes it holds now, its copy's) in `stats`."""
    stats.cache_copies += 1
    stats.copied_bytes += cache_bytes(cache)


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


def packed_mask(lengths: Sequence[int], past: int, dtype: torch.dtype, device: Any) -> torch.Tensor:
    """The additive attention mask, shape (1, 1, total, past + total), of options packed
    one after another behind `past` cached tokens: a token sees every cached token and
    the earlier tokens of its own option."""
    total = sum(lengths)
    owner = torch.repeat_interleave(
        torch.arange(len(lengths), device=device), torch.tensor(lengths, device=device)
    )
    index = torch.arange(total, device=device)
    own = (owner[:, None] == owner[None, :]) & (index[None, :] <= index[:, None])
    mask = torch.zeros(total, past + total, dtype=dtype, device=device)
    mask[:, past:].masked_fill_(~own, torch.finfo(dtype).min)
    return mask[None, None]


def naive_option_logprobs(
    model: Any, prompt: OptionPrompt, stats: ForwardStats | None = None
) -> list[list[float]]:
    """The reference: one full forward pass of prefix + option per option, no cache."""
    with torch.inference_mode():
        return [_naive_one(model, prompt.prefix, option, stats) for option in prompt.options]


def _naive_one(
    model: Any, prefix: tuple[int, ...], option: tuple[int, ...], stats: ForwardStats | None
) -> list[float]:
    ids = torch.tensor([prefix + option], device=model.device)
    output = model(input_ids=ids, use_cache=False, logits_to_keep=len(option) + 1)
    if stats is not None:
        stats.passes += 1
        stats.forward_tokens += ids.numel()
    return _gathered(output.logits[:, :-1], ids[:, len(prefix) :], [len(option)])[0]


def _gathered(logits: torch.Tensor, ids: torch.Tensor, lengths: Sequence[int]) -> list[list[float]]:
    """Log-probability of each id under the logits before it, in float32."""
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    picked = logprobs.gather(-1, ids.unsqueeze(-1)).squeeze(-1)
    return [picked[row, :length].tolist() for row, length in enumerate(lengths)]


def _split(values: list[float], lengths: Sequence[int]) -> list[list[float]]:
    rows, start = [], 0
    for length in lengths:
        rows.append(values[start : start + length])
        start += length
    return rows


def _croppable(cache: Any) -> bool:
    """Whether every layer of `cache` keeps all past positions, so it can be cut back."""
    return not any(getattr(cache, "is_sliding", ())) and not any(getattr(cache, "is_linear", ()))


def _croppable_model(model: Any) -> bool | None:
    """Whether the model's cache can be cut back, from the empty cache its config makes;
    None where this transformers cannot say before a cache exists."""
    try:
        return _croppable(DynamicCache(config=model.config))
    except (TypeError, ValueError, AttributeError):
        return None


def _shared_prefix_attention(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """transformers' SDPA attention, with two routes of its own for what this module runs.

    Under this implementation's name transformers builds no mask (it knows none for
    it), so `attention_mask` is None except for the options' packed mask.

    - No mask, as many queries as keys (a fresh prefill) or one query: transformers'
      SDPA (`is_causal`, the flash kernel).
    - No mask, fewer queries than keys (a pass after cached tokens): causal attention
      aligned to the bottom right, as transformers would mask it. On CUDA it is
      `causal_lower_right`, which SDPA runs on the flash kernel (grouped-query heads
      unexpanded); elsewhere the mask is built and passed to transformers' SDPA.
    - The packed options' mask with grouped-query heads: the query heads that share a key
      head are stacked along the query axis, so the keys and values are read as cached
      rather than copied once per query head (the mask is repeated instead, which is
      small: a few hundred rows).
    """
    from transformers.integrations.sdpa_attention import repeat_kv, sdpa_attention_forward

    q_length, kv_length = query.shape[2], key.shape[2]
    groups = query.shape[1] // key.shape[1]
    plain = all(
        kwargs.get(name) is None for name in ("position_bias", "softcap", "sliding_window", "s_aux")
    )
    dropout = float(kwargs.get("dropout", 0.0))
    scaling = kwargs.get("scaling")
    if attention_mask is None and 1 < q_length < kv_length:
        if not (plain and query.device.type in LOWER_RIGHT_DEVICES):
            bottom_right = torch.ones(q_length, kv_length, dtype=torch.bool, device=query.device)
            attention_mask = bottom_right.tril(kv_length - q_length)[None, None]
            return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)
        from torch.nn.attention.bias import causal_lower_right

        gqa = groups > 1 and _flash_takes_gqa(query, key, value, dropout)
        if groups > 1 and not gqa:
            key, value = repeat_kv(key, groups), repeat_kv(value, groups)
        output = torch.nn.functional.scaled_dot_product_attention(
            query,
            key,
            value,
            attn_mask=causal_lower_right(q_length, kv_length),
            dropout_p=dropout,
            scale=scaling,
            enable_gqa=gqa,
        )
        return output.transpose(1, 2).contiguous(), None
    if (
        attention_mask is not None
        and plain
        and groups > 1
        and attention_mask.dim() == 4
        and attention_mask.shape[1] == 1
        and attention_mask.shape[2] == q_length
    ):
        batch, heads, _, dim = query.shape
        stacked = query.reshape(batch, heads // groups, groups * q_length, dim)
        output = torch.nn.functional.scaled_dot_product_attention(
            stacked,
            key,
            value,
            attn_mask=attention_mask[..., :kv_length].repeat(1, 1, groups, 1),
            dropout_p=dropout,
            scale=scaling,
        )
        output = output.reshape(batch, heads, q_length, value.shape[-1])
        return output.transpose(1, 2).contiguous(), None
    return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)


def _flash_takes_gqa(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, dropout: float
) -> bool:
    """Whether SDPA's flash kernel takes these tensors with grouped-query heads unexpanded."""
    from torch.backends.cuda import SDPAParams, can_use_flash_attention

    return bool(can_use_flash_attention(SDPAParams(query, key, value, None, dropout, False, True)))


def _register() -> None:
    from transformers import AttentionInterface

    AttentionInterface.register(FAST_ATTENTION, _shared_prefix_attention)


_register()
