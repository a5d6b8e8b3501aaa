"""Option log-probabilities on a transformers model sharing the prefix's cache, against
one full forward pass per option, on every route (`answer/logprob/hf.py`)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install -e '.[local]'")
pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

import torch  # noqa: E402
from support.logprob import (  # noqa: E402
    LocalSetup,
    assert_close,
    cached_bytes_per_token,
    prompt_for,
    records,
)
from transformers import AutoModelForCausalLM  # noqa: E402

from inspect_personamem.answer.logprob.attention import FAST_ATTENTION  # noqa: E402
from inspect_personamem.answer.logprob.hf import (  # noqa: E402
    SharedPrefixLogprobs,
    naive_option_logprobs,
)
from inspect_personamem.answer.logprob.template import OptionPrompt  # noqa: E402


@pytest.mark.parametrize(("batch", "chunk"), [(4, None), (3, 64), (1, 64)])
def test_shared_prefix_equals_naive_forward(
    setup: LocalSetup, model: Any, tokenizer: Any, batch: int, chunk: int | None
) -> None:
    logprobs = SharedPrefixLogprobs(model, tokenizer, option_batch_size=batch, prefill_chunk=chunk)
    assert logprobs.packed and logprobs.fast_attention  # sdpa, grouped-query heads
    for record in records(setup):
        prompt = prompt_for(setup, tokenizer, record)
        assert_close(
            logprobs.option_logprobs(prompt).logprobs, naive_option_logprobs(model, prompt)
        )
    # questions of one context follow each other: their common history was reused
    assert logprobs.stats.reused_tokens > 0


def test_cache_reuse_saves_forward_tokens(setup: LocalSetup, model: Any, tokenizer: Any) -> None:
    context = records(setup)[0].context_id
    first, second = [r for r in records(setup) if r.context_id == context][:2]
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    alone = logprobs.option_logprobs(prompt_for(setup, tokenizer, first)).stats
    assert alone.reused_tokens == 0
    prompt = prompt_for(setup, tokenizer, second)
    scored = logprobs.option_logprobs(prompt)
    assert_close(scored.logprobs, naive_option_logprobs(model, prompt))
    # the history both questions share (every message has over 5 tokens) was not run again
    assert scored.stats.reused_tokens > 5 * min(first.end_index, second.end_index)
    # the new tail of the prefix, then the options packed into one pass: no padding
    assert scored.stats.forward_tokens == (
        len(prompt.prefix) - scored.stats.reused_tokens + sum(map(len, prompt.options))
    )
    assert logprobs.stats.forward_tokens == alone.forward_tokens + scored.stats.forward_tokens


class Passes:
    """Records each forward pass of a model: its input length and attention implementation."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls: list[tuple[int, str]] = []

    def __enter__(self) -> Passes:
        def hook(module: Any, args: Any, kwargs: dict[str, Any]) -> None:
            length = kwargs["input_ids"].shape[1]
            self.calls.append((length, module.config._attn_implementation))

        self.handle = self.model.register_forward_pre_hook(hook, with_kwargs=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.remove()

    @property
    def lengths(self) -> list[int]:
        return [length for length, _ in self.calls]


def test_prefill_is_one_causal_pass_when_nothing_is_reused(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    options = sum(map(len, prompt.options))
    with Passes(model) as passes:
        scored = SharedPrefixLogprobs(model, tokenizer).option_logprobs(prompt)
    # the whole prefix in one pass, then all four options in another
    assert passes.lengths == [len(prompt.prefix), options]
    assert scored.stats.passes == 2
    assert {name for _, name in passes.calls} == {FAST_ATTENTION}
    assert model.config._attn_implementation == "sdpa"  # put back after the call
    with Passes(model) as passes:
        SharedPrefixLogprobs(model, tokenizer, prefill_chunk=100).option_logprobs(prompt)
    chunks = [min(100, len(prompt.prefix) - start) for start in range(0, len(prompt.prefix), 100)]
    assert passes.lengths == [*chunks, options]
    # the option batch size bounds the options run in one pass
    with Passes(model) as passes:
        SharedPrefixLogprobs(model, tokenizer, option_batch_size=3).option_logprobs(prompt)
    assert passes.lengths == [
        len(prompt.prefix),
        *(sum(map(len, b)) for b in (prompt.options[:3], prompt.options[3:])),
    ]


def test_attention_implementation_is_put_back_after_a_failure(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    broken = OptionPrompt(prompt.prefix, ((10**6,),), ("x",))  # an id beyond the vocabulary
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    with pytest.raises((IndexError, RuntimeError)):
        logprobs.option_logprobs(broken)
    assert model.config._attn_implementation == "sdpa"
    assert_close(logprobs.option_logprobs(prompt).logprobs, naive_option_logprobs(model, prompt))


@pytest.mark.parametrize("route", ["transformers attention", "eager", "padded"])
def test_other_routes_equal_naive(
    setup: LocalSetup, model: Any, tokenizer: Any, route: str
) -> None:
    """transformers' own masks (fast_attention off), eager attention (the packed mask
    added to the scores), and the padded batch on copies of the cache (attention that
    takes no such mask)."""
    used = model
    if route == "eager":
        used = AutoModelForCausalLM.from_pretrained(setup.model, attn_implementation="eager")
    logprobs = SharedPrefixLogprobs(used, tokenizer, prefill_chunk=64, fast_attention=False)
    assert not logprobs.fast_attention
    if route == "padded":
        logprobs.packed = False
    for record in records(setup)[:4]:
        prompt = prompt_for(setup, tokenizer, record)
        scored = logprobs.option_logprobs(prompt)
        assert_close(scored.logprobs, naive_option_logprobs(used, prompt))
        options = 4 * prompt.longest_option if route == "padded" else sum(map(len, prompt.options))
        assert scored.stats.forward_tokens == (
            len(prompt.prefix) - scored.stats.reused_tokens + options
        )
    assert logprobs.stats.reused_tokens > 0


def test_reuse_when_the_new_prefix_extends_the_cached_one(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    """The whole cached prefix is reused (nothing to cut back) and the scores stay exact."""
    first = prompt_for(setup, tokenizer, records(setup)[0])
    longer = OptionPrompt(first.prefix + first.options[0], first.options, first.texts)
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    logprobs.option_logprobs(first)
    scored = logprobs.option_logprobs(longer)
    assert scored.stats.reused_tokens == len(first.prefix)
    assert_close(scored.logprobs, naive_option_logprobs(model, longer))


def test_sliding_window_model_scores_equal_naive(setup: LocalSetup, tokenizer: Any) -> None:
    """A sliding-window cache cannot be cut back: options run padded on a copy, no reuse."""
    from transformers import MistralConfig, MistralForCausalLM

    torch.manual_seed(0)
    window = 16
    sliding: Any = MistralForCausalLM(
        MistralConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            sliding_window=window,
            initializer_range=0.5,
        )
    )
    sliding.eval()
    for chunk in (64, None):
        logprobs = SharedPrefixLogprobs(
            sliding, tokenizer, option_batch_size=3, prefill_chunk=chunk
        )
        assert logprobs.croppable is False
        assert not logprobs.packed and not logprobs.fast_attention
        for record in records(setup)[:3]:
            prompt = prompt_for(setup, tokenizer, record)
            assert len(prompt.prefix) > 4 * window
            scored = logprobs.option_logprobs(prompt)
            assert_close(scored.logprobs, naive_option_logprobs(sliding, prompt))
            # per batch of options (3, then 1) a copy of the prefix's cache, repeated per
            # option where there are several; a layer keeps its last window - 1 positions
            held = (window - 1) * cached_bytes_per_token(sliding)
            assert scored.stats.cache_copies == 3
            assert scored.stats.copied_bytes == held * (1 + 3) + held
        assert logprobs.stats.reused_tokens == 0
