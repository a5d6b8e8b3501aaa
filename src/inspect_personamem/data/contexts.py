"""Histories as every version's history sources read them: what a store of them offers
(`Contexts`), a question's history (`sample_history`, by its `AskedAt`), messages as
Inspect messages (`chat_messages`, text byte for byte) and where sessions open. How a
version's files hold its histories is its own (PersonaMem's context file:
`datasets/v1/contexts.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.utf8 import not_utf8, shown
from inspect_personamem.errors import PersonaMemDataError

_ROLES: dict[str, type[ChatMessageSystem | ChatMessageUser | ChatMessageAssistant]] = {
    "system": ChatMessageSystem,
    "user": ChatMessageUser,
    "assistant": ChatMessageAssistant,
}


class Contexts(Protocol):
    """What a history source reads of the past: a context's messages, and a question's
    history (the first `end_index` of them). PersonaMem's `ContextStore` is one, and
    so is any version's store of histories (one whole history per persona, say)."""

    def messages(self, context_id: str) -> Sequence[ChatMessage]: ...

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]: ...


def chat_messages(value: Any, where: str) -> tuple[ChatMessage, ...]:
    """A parsed JSON list of `{"role", "content"}` messages as Inspect messages, the text
    byte for byte; anything else is an error beginning with `where` (file and place)."""
    if not isinstance(value, list):
        raise PersonaMemDataError(f"{where}: not a list of messages")
    messages: list[ChatMessage] = []
    for index, item in enumerate(value):
        role = item.get("role") if isinstance(item, dict) else None
        content = item.get("content") if isinstance(item, dict) else None
        if role not in _ROLES:
            raise PersonaMemDataError(f"{where}, message {index}, field 'role': {_shown(role)}")
        if not isinstance(content, str):
            raise PersonaMemDataError(
                f"{where}, message {index}, field 'content': expected a string"
            )
        bad = not_utf8(content)
        if bad is not None:
            raise PersonaMemDataError(
                f"{where}, message {index}, field 'content': {bad} (the file must be UTF-8)"
            )
        messages.append(_ROLES[role](content=content))
    return tuple(messages)


def _shown(value: object) -> str:
    """`repr(value)`, undecodable bytes as `\\xNN` (a lone surrogate cannot be printed)."""
    return repr(shown(value) if isinstance(value, str) else value)


class _NoContexts:
    """The contexts of a run that reads no history (`history=none`): asked for none."""

    def messages(self, context_id: str) -> Sequence[ChatMessage]:
        raise AssertionError(f"a run without history asked for context {context_id!r}")

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]:
        raise AssertionError(f"a run without history asked for context {context_id!r}")


NO_CONTEXTS: Contexts = _NoContexts()
"""What a history source that reads nothing is given instead of a store."""


def session_starts(roles: Sequence[str]) -> list[int]:
    """The positions at which the sessions of a history whose messages have `roles` open:
    each `system` message, and 0 where the history opens with another message
    (PersonaMem's sessions, each opening with a persona message; a history with one
    system message, at its start, is one session). Roles, not messages: PersonaMem's
    generator lays out the histories it writes by the same rule."""
    starts = [i for i, role in enumerate(roles) if role == "system"]
    return starts if starts and starts[0] == 0 else [0, *starts]


def sample_history(store: Contexts, metadata: Mapping[str, Any]) -> Sequence[ChatMessage]:
    """A question's history, `context[:end_index]` of the history it is asked after
    (`AskedAt`): the one lookup every history source uses, so none sees past its end
    index."""
    asked = AskedAt.of(metadata)
    return store.history(asked.history, asked.end_index)


def sample_messages(store: Contexts, metadata: Mapping[str, Any]) -> Sequence[ChatMessage]:
    """A question's visible messages, `messages(context)[:end_index]`: what the positions
    of the memory pool, its items and the history tools count. Where a version's
    `history` is that prefix (v1, v2) the two are one; where it lays the same past out
    otherwise (PersonaMem-v3's long-context text, one message), tools read these."""
    asked = AskedAt.of(metadata)
    return store.messages(asked.history)[: asked.end_index]
