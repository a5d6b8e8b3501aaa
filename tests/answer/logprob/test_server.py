"""Option log-probabilities from an OpenAI-compatible completions server (vLLM's echoed
prompt log-probabilities), against the local model's, within the server's window
(`answer/logprob/server.py`)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

from support.logprob import LocalSetup, completions_server  # noqa: E402

from inspect_personamem.answer.logprob.hf import naive_option_logprobs  # noqa: E402
from inspect_personamem.answer.logprob.server import (  # noqa: E402
    CompletionsLogprobs,
    ServerResponseError,
)
from inspect_personamem.answer.logprob.template import OptionPrompt, build_prompt  # noqa: E402
from inspect_personamem.datasets.v1.contexts import open_context_store  # noqa: E402
from inspect_personamem.datasets.v1.records import read_questions  # noqa: E402


def test_completions_logprobs_match_local_model(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    context_id = read_questions(setup.questions, "32k")[0].context_id
    history = open_context_store(setup.contexts).messages(context_id)[:6]
    prompt: OptionPrompt = build_prompt(tokenizer, history, ["jazz river", "yoga", "a b", "x"])
    requests: list[dict[str, Any]] = []
    with completions_server(model, "tiny", 512, requests) as base_url:
        server = CompletionsLogprobs(base_url, "tiny")
        got = anyio.run(server.option_logprobs, prompt).logprobs
        # one token of the server's window is left for the token each request generates
        assert anyio.run(server.context_window) == 511
        size = 511 - prompt.longest_option
        full = OptionPrompt(prompt.prefix[:1] * size, prompt.options, prompt.texts)
        anyio.run(server.option_logprobs, full)  # fills the window: accepted
        longer = OptionPrompt(full.prefix[:1] + full.prefix, full.options, full.texts)
        with pytest.raises(ServerResponseError, match="HTTP 400"):
            anyio.run(server.option_logprobs, longer)
    expected = naive_option_logprobs(model, prompt)
    assert (
        max(
            abs(x - y)
            for u, v in zip(got, expected, strict=True)
            for x, y in zip(u, v, strict=True)
        )
        < 1e-4
    )
    request = requests[0]  # then the two window probes
    assert request["echo"] is True and request["logprobs"] >= 0
    assert request["prompt"] == [list(prompt.prefix + option) for option in prompt.options]
