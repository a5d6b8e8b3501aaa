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
  `attention.py`).
- Options. All options of a question run as one packed sequence on the prefix's cache:
  each option's tokens at the positions right after the prefix, with a mask that lets
  a token see the prefix and the earlier tokens of its own option only. No copy of the
  cache is made and no padding is run; the cache is then cut back to the prefix.
  Models that cannot take such a mask (attention other than sdpa or eager) or whose
  cache cannot be cut back run the options as one right-padded batch on copies of the
  cache instead (`option_batch_size` at a time, to bound memory; padding sits after
  each option's tokens, so causal attention never lets a real token see it).

The cache the shared path keeps is written in place (`kv_cache.py`); its copies, as
the padded route's, are counted in the stats (`ForwardStats.cache_copies`,
`copied_bytes`).

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch

from inspect_personamem.answer.logprob.attention import FAST_ATTENTION, packed_mask
from inspect_personamem.answer.logprob.kv_cache import (
    Copied,
    cache_bytes,
    croppable,
    croppable_model,
    reserved_cache,
)
from inspect_personamem.answer.logprob.stats import ForwardStats, Scored
from inspect_personamem.answer.logprob.template import OptionPrompt, common_prefix_length

MIN_REUSE = 0.25
"""A kept cache is used only when it covers this share of the new prefix: a small reuse
(another context: only the first few template tokens in common) saves nothing, and a
fresh start frees the old cache before the new one grows (and, where the attention
after a cache needs an explicit mask, runs faster per token)."""

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
        fast_attention: Use `attention.FAST_ATTENTION` (bottom-right causal attention
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
        self.croppable = croppable_model(model)
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
                can_crop = self.croppable
                if can_crop is None:
                    can_crop = croppable(self._cache)
                results: list[list[float]] = []
                for start in range(0, len(prompt.options), self.option_batch_size):
                    batch = prompt.options[start : start + self.option_batch_size]
                    if self.packed:
                        results += self._packed(batch, last_logits, call)
                    else:
                        results += self._padded(batch, last_logits, call, can_crop)
                if not can_crop:
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
        can_crop: bool,
    ) -> list[list[float]]:
        """Run `options` as one right-padded batch on the prefix's cache, then cut the
        cache back to the prefix; a cache that cannot be cut back is copied instead."""
        width = max(len(option) for option in options)
        ids = torch.full((len(options), width), self.pad_id, dtype=torch.long)
        for row, option in enumerate(options):
            ids[row, : len(option)] = torch.tensor(option)
        ids = ids.to(self.model.device)
        cache = self._cache
        if not can_crop:
            cache = copy.deepcopy(cache)
            _count_copy(stats, cache)
        if len(options) > 1:
            cache.batch_repeat_interleave(len(options))
            _count_copy(stats, cache)
        output = self._forward(stats, input_ids=ids, past_key_values=cache, use_cache=True)
        if can_crop:
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
