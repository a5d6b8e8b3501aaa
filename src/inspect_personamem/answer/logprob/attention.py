"""The attention `hf.py` runs: the packed options' mask, and an attention implementation
registered in transformers (`FAST_ATTENTION`) that keeps SDPA on its fastest kernels for
a pass after cached tokens and for packed options with grouped-query heads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

FAST_ATTENTION = "personamem_shared_prefix"
"""The name `_shared_prefix_attention` is registered under in transformers, and set as
the model's attention implementation for the length of each call."""

LOWER_RIGHT_DEVICES = ("cuda",)
"""Devices on which a pass after cached tokens uses SDPA's bottom-right causal bias
rather than an explicit mask (elsewhere PyTorch would build the same mask itself)."""


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
