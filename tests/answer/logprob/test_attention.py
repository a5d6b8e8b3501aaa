"""The packed options' mask, and the bottom-right causal route of the registered
attention (`answer/logprob/attention.py`)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install -e '.[local]'")
pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

import torch  # noqa: E402
from support.logprob import LocalSetup, assert_close, prompt_for, records  # noqa: E402

from inspect_personamem.answer.logprob import attention  # noqa: E402
from inspect_personamem.answer.logprob.attention import packed_mask  # noqa: E402
from inspect_personamem.answer.logprob.hf import (  # noqa: E402
    SharedPrefixLogprobs,
    naive_option_logprobs,
)


def test_bottom_right_causal_bias_route_equals_naive(
    setup: LocalSetup, model: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CUDA route for passes after cached tokens (SDPA's `causal_lower_right`), here
    taken on the CPU, where PyTorch materialises the same bias."""
    monkeypatch.setattr(attention, "LOWER_RIGHT_DEVICES", ("cuda", "cpu"))
    logprobs = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=50)
    for record in records(setup)[:4]:
        prompt = prompt_for(setup, tokenizer, record)
        assert_close(
            logprobs.option_logprobs(prompt).logprobs, naive_option_logprobs(model, prompt)
        )
    assert logprobs.stats.reused_tokens > 0


def test_packed_mask_lets_each_option_see_the_prefix_and_itself() -> None:
    mask = packed_mask([2, 1, 3], 4, torch.float32, "cpu")
    assert mask.shape == (1, 1, 6, 10)
    seen = (mask[0, 0] == 0).int().tolist()
    assert seen == [
        [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 1, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 1, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
        [1, 1, 1, 1, 0, 0, 0, 1, 1, 1],
    ]
    assert float(mask.min()) == torch.finfo(torch.float32).min
