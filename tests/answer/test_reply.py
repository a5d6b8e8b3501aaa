"""The one solver step that answers (`answer/reply.py`): the history the source gives,
the question after it under the system-message policy, one generation, and then the
history removed from `state.messages` unless kept; a source's whole prompt sent as is;
prompt-cache breakpoints only on Anthropic models, on a prefix history, not merged."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentText,
)
from support.reply import answered

from inspect_personamem.history.seen import Seen

HISTORY: list[ChatMessage] = [
    ChatMessageSystem(content="persona"),
    ChatMessageUser(content="u1"),
    ChatMessageAssistant(content="a1"),
    ChatMessageUser(content="u2"),
]


def texts(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]


def test_the_history_then_the_question_is_sent_and_only_the_question_kept() -> None:
    sent, kept = answered(Seen(HISTORY, prefix=True))
    assert texts(sent) == [
        ("system", "persona"), ("user", "u1"), ("assistant", "a1"), ("user", "u2"),
        ("user", "which one?"),
    ]  # fmt: skip
    assert texts(kept) == [("user", "which one?"), ("assistant", "(b)")]


def test_the_history_stays_in_the_log_where_asked() -> None:
    sent, kept = answered(Seen(HISTORY), keep=True)
    assert texts(kept) == [*texts(sent), ("assistant", "(b)")]


def test_the_system_message_policy_applies_to_the_history_and_question() -> None:
    """`drop` leaves the persona out; `merge` (the official conversion) folds it into
    the next message and joins the two user messages that then follow each other."""
    dropped, _ = answered(Seen(HISTORY), policy="drop")
    assert texts(dropped) == [
        ("user", "u1"), ("assistant", "a1"), ("user", "u2"), ("user", "which one?"),
    ]  # fmt: skip
    merged, kept = answered(Seen(HISTORY), policy="merge")
    assert texts(merged) == [
        ("user", "[System]: persona\nu1"), ("assistant", "a1"), ("user", "u2\nwhich one?"),
    ]  # fmt: skip
    assert texts(kept) == [("user", "which one?"), ("assistant", "(b)")]


def test_a_sources_whole_prompt_replaces_the_composition() -> None:
    prompt: list[ChatMessage] = [ChatMessageSystem(content="s"), ChatMessageUser(content="all")]
    sent, kept = answered(Seen(HISTORY, prompt=prompt))
    assert texts(sent) == [("system", "s"), ("user", "all")]
    assert texts(kept) == [("user", "which one?"), ("assistant", "(b)")]


def marked(messages: Sequence[ChatMessage]) -> list[int]:
    """The positions of the messages that carry a cache breakpoint."""
    return [
        i
        for i, m in enumerate(messages)
        if not isinstance(m.content, str)
        and any(isinstance(c, ContentText) and c.cache_breakpoint for c in m.content)
    ]


def test_cache_breakpoints_mark_the_prefix_ends_on_anthropic_models_only() -> None:
    """The sample's ends (2 and 4): after `u1` and after `u2`, message text unchanged."""
    anthropic = "anthropic/claude-3-7-sonnet-latest"
    sent, _ = answered(Seen(HISTORY, prefix=True), model=anthropic)
    assert marked(sent) == [1, 3] and texts(sent)[:4] == texts(HISTORY)
    assert marked(answered(Seen(HISTORY, prefix=True))[0]) == []  # another provider
    assert marked(answered(Seen(HISTORY), model=anthropic)[0]) == []  # not a prefix
    assert marked(answered(Seen(HISTORY, prefix=True), model=anthropic, breakpoints=False)[0]) == []
    merged = answered(Seen(HISTORY, prefix=True), model=anthropic, policy="merge")[0]
    assert marked(merged) == []
