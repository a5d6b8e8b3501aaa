from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.datasets.v1.evidence import evidence_session


def history(*lengths: int, lead: int = 0) -> list[ChatMessage]:
    """Sessions of the given lengths (each a persona system message and turns), after
    `lead` messages outside any session."""
    messages: list[ChatMessage] = [ChatMessageUser(content=f"lead {i}") for i in range(lead)]
    for number, length in enumerate(lengths):
        messages.append(ChatMessageSystem(content=f"Current user persona: {number}"))
        for turn in range(length - 1):
            role = ChatMessageUser if turn % 2 == 0 else ChatMessageAssistant
            messages.append(role(content=f"session {number} turn {turn}"))
    return messages


def roles(messages: list[ChatMessage]) -> list[str]:
    return [message.role for message in messages]


def test_sessions_open_at_each_system_message() -> None:
    assert session_starts(roles(history(3, 4, 2))) == [0, 3, 7]
    assert session_starts(roles(history(3, 4, lead=2))) == [0, 2, 5]


def test_the_evidence_is_the_session_that_many_before_the_questions_own() -> None:
    messages = history(3, 4, 5, 6)  # sessions open at 0, 3, 7, 12; 18 messages
    # a question inside the last session: one back is the third, three back the first
    one = evidence_session(messages[:15], 1)
    assert one.spans == ((7, 12),) and list(one.shown) == messages[7:12]
    assert evidence_session(messages[:15], 3).spans == ((0, 3),)
    assert "session 1 of 4" in evidence_session(messages[:15], 3).where
    # a question whose end index falls just after a session opens: that session is its own
    assert evidence_session(messages[:13], 1).spans == ((7, 12),)
    # end index at a session's system message: the session before is the question's own
    assert evidence_session(messages[:12], 1).spans == ((3, 7),)


def test_a_distance_past_the_first_session_is_not_located() -> None:
    messages = history(3, 4, 5)
    missing = evidence_session(messages, 3)
    assert not missing.located and missing.shown == ()
    assert "not located" in missing.where
    assert not evidence_session([], 1).located
