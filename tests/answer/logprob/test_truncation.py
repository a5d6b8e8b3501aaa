"""A prompt fitted into the context window: the oldest messages cut, the session's
system message kept, and an error where no history fits (`answer/logprob/truncation.py`)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torch", reason="needs the local extra: pip install -e '.[local]'")
pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

from inspect_ai.model import ChatMessageSystem, ChatMessageUser  # noqa: E402
from support.logprob import LocalSetup, records  # noqa: E402

from inspect_personamem.answer.logprob.template import PrefixEncoder  # noqa: E402
from inspect_personamem.answer.logprob.truncation import (  # noqa: E402
    ContextWindowError,
    fit_prompt,
)
from inspect_personamem.datasets.v1.contexts import open_context_store  # noqa: E402


def test_truncation_cuts_oldest_messages_and_keeps_session_system(
    setup: LocalSetup, tokenizer: Any
) -> None:
    record = max(records(setup), key=lambda r: r.end_index)
    history = open_context_store(setup.contexts).history(record.context_id, record.end_index)
    question = [ChatMessageUser(content=record.question)]
    bodies = record.options.bodies()
    _, full, untouched = fit_prompt(tokenizer, history, question, "keep", bodies, 4096)
    assert untouched.dropped_messages == 0 and untouched.dropped_tokens == 0
    window = full.length() // 2
    messages, prompt, truncation = fit_prompt(tokenizer, history, question, "keep", bodies, window)
    assert prompt.length() <= window
    assert truncation.dropped_messages > 0
    assert truncation.dropped_tokens == len(full.prefix) - len(prompt.prefix) > 0
    assert truncation.prefix_tokens == len(prompt.prefix)
    # the kept messages are the newest ones, behind the system message of their session
    kept = messages[:-1]
    assert isinstance(kept[0], ChatMessageSystem)
    assert kept[1:] == list(history[len(history) - len(kept) + 1 :])
    # as few messages as possible were cut: one more message would not fit
    _, _, one_less = fit_prompt(tokenizer, history, question, "keep", bodies, window + 1)
    assert one_less.dropped_messages <= truncation.dropped_messages


def test_window_too_small_for_any_history_fails(setup: LocalSetup, tokenizer: Any) -> None:
    record = max(records(setup), key=lambda r: r.end_index)
    history = open_context_store(setup.contexts).history(record.context_id, record.end_index)
    question = [ChatMessageUser(content=record.question)]
    bodies = record.options.bodies()
    _, bare, _ = fit_prompt(tokenizer, (), question, "keep", bodies, 4096)
    with pytest.raises(ContextWindowError, match="no message of its"):
        fit_prompt(tokenizer, history, question, "keep", bodies, bare.length() + 2)
    with pytest.raises(ContextWindowError, match="without any history"):
        fit_prompt(tokenizer, history, question, "keep", bodies, bare.length() - 1)


@pytest.mark.parametrize("window", [4096, 300])
def test_fit_prompt_with_a_kept_encoder_equals_fresh_encodings(
    setup: LocalSetup, tokenizer: Any, window: int
) -> None:
    """The encoder kept across questions (as the solver keeps it) changes no prompt, with
    or without truncation."""
    from inspect_personamem.data.order import order_records

    store = open_context_store(setup.contexts)
    encoder = PrefixEncoder(tokenizer)
    for record in order_records(records(setup), "grouped"):
        args = (
            tokenizer,
            store.history(record.context_id, record.end_index),
            [ChatMessageUser(content=record.question)],
            "keep",
            record.options.bodies(),
            window,
        )
        assert fit_prompt(*args, encoder) == fit_prompt(*args)  # type: ignore[arg-type]
    if window == 4096:  # no truncation: only each context's first question encoded whole
        assert encoder.whole == 2
