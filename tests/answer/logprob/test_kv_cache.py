"""The cache kept across questions, written in place: no copy while its buffer holds the
tokens, one counted copy when it is outgrown (`answer/logprob/kv_cache.py`)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install -e '.[local]'")
pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

from support.logprob import (  # noqa: E402
    LocalSetup,
    assert_close,
    cached_bytes_per_token,
    prompt_for,
    records,
)

from inspect_personamem.answer.logprob.hf import (  # noqa: E402
    SharedPrefixLogprobs,
    naive_option_logprobs,
)
from inspect_personamem.answer.logprob.template import OptionPrompt  # noqa: E402


def storages(logprobs: SharedPrefixLogprobs) -> list[int]:
    """Where each layer's cached keys and values live."""
    return [
        tensor.untyped_storage().data_ptr()
        for layer in logprobs._cache.layers
        for tensor in (layer.keys, layer.values)
    ]


def test_a_kept_cache_is_written_in_place(setup: LocalSetup, model: Any, tokenizer: Any) -> None:
    """Passes after a kept cache write their own keys and values only: no copy of the
    cache (transformers' own cache concatenates, copying all of it on every pass)."""
    context = records(setup)[0].context_id
    first, second, third = [r for r in records(setup) if r.context_id == context][:3]
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    alone = logprobs.option_logprobs(prompt_for(setup, tokenizer, first)).stats
    assert (alone.passes, alone.cache_copies, alone.copied_bytes) == (2, 0, 0)
    where = storages(logprobs)
    for record in (second, third):
        prompt = prompt_for(setup, tokenizer, record)
        # the buffer reserved at the first prefill holds the later ones of this context
        assert len(prompt.prefix) + sum(map(len, prompt.options)) <= 1.5 * alone.forward_tokens
        scored = logprobs.option_logprobs(prompt)
        assert_close(scored.logprobs, naive_option_logprobs(model, prompt))
        assert scored.stats.reused_tokens > 0
        # the new tail, then the options: two passes, nothing copied
        assert (scored.stats.passes, scored.stats.cache_copies, scored.stats.copied_bytes) == (
            2,
            0,
            0,
        )
        assert storages(logprobs) == where
    assert logprobs.stats.passes == 6 and logprobs.stats.copied_bytes == 0


def test_a_prefix_run_in_chunks_fills_its_cache_without_copies(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    logprobs = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=50)
    stats = logprobs.option_logprobs(prompt).stats
    assert stats.passes == -(-len(prompt.prefix) // 50) + 1
    assert (stats.cache_copies, stats.copied_bytes) == (0, 0)


def test_a_kept_cache_outgrown_is_copied_once(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    """A prefix longer than the reserved buffer holds moves the cached tokens to a larger
    one: one copy of what was kept, counted in bytes, and the scores stay exact."""
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    kept = len(prompt.prefix) // 3  # above MIN_REUSE, below the buffer's 1.5x growth
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    logprobs.option_logprobs(OptionPrompt(prompt.prefix[:kept], prompt.options, prompt.texts))
    where = storages(logprobs)
    scored = logprobs.option_logprobs(prompt)
    assert scored.stats.reused_tokens == kept
    assert scored.stats.passes == 2
    assert scored.stats.cache_copies == 1
    assert scored.stats.copied_bytes == kept * cached_bytes_per_token(model)
    assert set(storages(logprobs)).isdisjoint(where)
    assert_close(scored.logprobs, naive_option_logprobs(model, prompt))
