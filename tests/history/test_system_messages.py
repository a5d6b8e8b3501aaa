from __future__ import annotations

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
)

from inspect_personamem.history.system_messages import conversation, merge_system_messages

HISTORY: list[ChatMessage] = [
    ChatMessageSystem(content="Persona A"),
    ChatMessageUser(content="User: hi"),
    ChatMessageAssistant(content="Assistant: hello"),
    ChatMessageUser(content="User: one"),
    ChatMessageUser(content="[Original_Sentence]: two"),
    ChatMessageAssistant(content="Assistant: ok"),
    ChatMessageSystem(content="Persona B"),
    ChatMessageSystem(content="Persona C"),
]
QUESTION: list[ChatMessage] = [ChatMessageUser(content="Question?")]


def roles_and_texts(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]


def test_keep_sends_everything_as_is() -> None:
    sent = conversation(HISTORY, QUESTION, "keep")
    assert all(a is b for a, b in zip(sent, [*HISTORY, *QUESTION], strict=True))
    assert len(sent) == 9


def test_drop_removes_only_system_messages() -> None:
    sent = conversation(HISTORY, QUESTION, "drop")
    assert [m.role for m in sent] == ["user", "assistant", "user", "user", "assistant", "user"]


def test_merge_is_the_official_conversion() -> None:
    sent = conversation(HISTORY, QUESTION, "merge")
    assert roles_and_texts(sent) == [
        ("user", "[System]: Persona A\nUser: hi"),
        ("assistant", "Assistant: hello"),
        ("user", "User: one\n[Original_Sentence]: two"),
        ("assistant", "Assistant: ok"),
        ("user", "[System]: Persona B\n[System]: Persona C\nQuestion?"),
    ]
    assert sent[1] is HISTORY[2]  # untouched messages are reused, not copied


def test_merge_joins_the_question_to_a_trailing_user_message() -> None:
    sent = merge_system_messages([*HISTORY[:4], *QUESTION])
    assert roles_and_texts(sent)[-1] == ("user", "User: one\nQuestion?")


def test_merge_joins_assistant_runs() -> None:
    sent = merge_system_messages(
        [ChatMessageAssistant(content="a"), ChatMessageAssistant(content="b")]
    )
    assert roles_and_texts(sent) == [("assistant", "a\nb")]
