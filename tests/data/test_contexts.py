"""Histories as every version reads them (`data/contexts.py`): JSON messages as Inspect
messages (refusals naming place, message and field), where sessions open, a question's
history cut at its end index, and no history for a run that reads none."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.contexts import (
    NO_CONTEXTS,
    chat_messages,
    sample_history,
    session_starts,
)
from inspect_personamem.errors import PersonaMemDataError


def test_messages_keep_their_role_and_text_byte_for_byte() -> None:
    text = "cafe\u0301 \n tabs\there "
    messages = chat_messages(
        [
            {"role": "system", "content": "persona"},
            {"role": "user", "content": text},
            {"role": "assistant", "content": "", "extra": 1},
        ],
        "f.jsonl, line 1",
    )
    assert [(m.role, m.text) for m in messages] == [
        ("system", "persona"),
        ("user", text),
        ("assistant", ""),
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"role": "user"}, "f, line 2: not a list of messages"),
        ([{"role": "tool", "content": "x"}], "f, line 2, message 0, field 'role': 'tool'"),
        ([{"content": "x"}], "f, line 2, message 0, field 'role': None"),
        (["user: x"], "f, line 2, message 0, field 'role': None"),
        (
            [{"role": "user", "content": "x"}, {"role": "user", "content": 3}],
            "f, line 2, message 1, field 'content': expected a string",
        ),
        (
            [{"role": "user\udcff", "content": "x"}],
            "f, line 2, message 0, field 'role': 'user\\\\xff'",
        ),
    ],
)
def test_anything_else_is_refused_naming_where(value: Any, message: str) -> None:
    with pytest.raises(PersonaMemDataError) as info:
        chat_messages(value, "f, line 2")
    assert str(info.value) == message


def test_content_that_is_not_utf8_is_refused_naming_the_field() -> None:
    with pytest.raises(PersonaMemDataError, match=r"^f, message 0, field 'content': .*UTF-8\)$"):
        chat_messages([{"role": "user", "content": "ok \udcff"}], "f")


@pytest.mark.parametrize(
    ("roles", "starts"),
    [
        (["system", "user", "assistant", "system", "user"], [0, 3]),
        (["user", "assistant", "system", "user"], [0, 2]),
        (["user", "assistant"], [0]),
        (["system", "system", "user"], [0, 1]),
        ([], [0]),
    ],
)
def test_sessions_open_at_each_system_message_and_at_the_start(
    roles: list[str], starts: list[int]
) -> None:
    assert session_starts(roles) == starts


class Store:
    """Contexts of one history, recording the lookups."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []
        self.context = [ChatMessageUser(content=str(i)) for i in range(5)]

    def messages(self, context_id: str) -> Sequence[ChatMessage]:
        return self.context

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]:
        self.asked.append((context_id, end_index))
        return self.context[:end_index]


def test_a_questions_history_is_its_context_up_to_its_end_index() -> None:
    store = Store()
    history = sample_history(store, AskedAt("c7", 3, "q").metadata())
    assert [m.text for m in history] == ["0", "1", "2"] and store.asked == [("c7", 3)]
    before = {"shared_context_id": "c8", "end_index_in_shared_context": 2}
    assert len(sample_history(store, before | {"user_question_or_message": "q"})) == 2
    assert store.asked[-1] == ("c8", 2)  # a log written before `asked_at`


def test_a_run_without_history_is_never_given_one() -> None:
    with pytest.raises(AssertionError, match="a run without history asked for context 'c1'"):
        NO_CONTEXTS.history("c1", 3)
    with pytest.raises(AssertionError, match="'c2'"):
        NO_CONTEXTS.messages("c2")
