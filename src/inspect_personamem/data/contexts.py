"""Shared contexts: one parsed message list per context, shared by all its questions.

The context file has one line per context, `{"<shared_context_id>": [messages]}`.
The store indexes the file by byte offset in one pass (reading only each line's key)
and parses a context the first time it is asked for, so a 1M file is never parsed
whole and each history exists once in memory however many questions use it.
Message text is kept byte for byte: no stripping, no Unicode normalisation.
The file is UTF-8; a byte-order mark at its start is allowed (and skipped); a byte
that is not UTF-8 is an error naming the line, the context and the message.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.utf8 import not_utf8, shown
from inspect_personamem.errors import PersonaMemDataError

_KEY = re.compile(rb'\{\s*"((?:[^"\\]|\\.)*)"\s*:')
_BOM = b"\xef\xbb\xbf"
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


class ContextStore:
    """Read-only access to the contexts of one shared-context JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offsets: dict[str, tuple[int, int]] = _index(path)
        self._loaded: dict[str, tuple[ChatMessage, ...]] = {}

    def __contains__(self, context_id: object) -> bool:
        return context_id in self._offsets

    def __len__(self) -> int:
        """The contexts in the file (its lines)."""
        return len(self._offsets)

    def messages(self, context_id: str) -> tuple[ChatMessage, ...]:
        """All messages of a context, parsed on first use and shared afterwards."""
        loaded = self._loaded.get(context_id)
        if loaded is None:
            loaded = self._load(context_id)
            self._loaded[context_id] = loaded
        return loaded

    def history(self, context_id: str, end_index: int) -> Sequence[ChatMessage]:
        """`context[:end_index]`, exactly as the official script slices it."""
        return self.messages(context_id)[:end_index]

    def line_with_key(self, context_id: str) -> tuple[int, str] | None:
        """(line, the line's first key) of a line holding `context_id` as a key that is
        not its first (so not indexed), or None: for an error message that says why an
        id seems missing."""
        pattern = re.compile(re.escape(json.dumps(context_id).encode()) + rb"\s*:")
        keys = {line: key for key, (_, line) in self._offsets.items()}
        with self.path.open("rb") as file:
            for number, raw in enumerate(file, start=1):
                if number in keys and pattern.search(raw):
                    return number, keys[number]
        return None

    def _load(self, context_id: str) -> tuple[ChatMessage, ...]:
        if context_id not in self._offsets:
            raise PersonaMemDataError.at(self.path, f"no context with id {context_id!r}")
        offset, line = self._offsets[context_id]
        with self.path.open("rb") as file:
            file.seek(offset)
            raw = file.readline()
        where = f"line {line} (context {context_id})"
        text = raw.decode("utf-8", "surrogateescape")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as ex:
            raise PersonaMemDataError(
                f"{self.path}, {where}: not valid JSON, the line may be truncated ({ex.msg} "
                f"at character {ex.pos} of {len(text)})"
            ) from None
        if not isinstance(value, dict) or list(value) != [context_id]:
            keys = list(value)[:3] if isinstance(value, dict) else []
            raise PersonaMemDataError(
                f"{self.path}, {where}: expected a single-key object {{context_id: [messages]}}"
                + (f", found keys {', '.join(map(repr, keys))}" if keys else "")
            )
        return chat_messages(value[context_id], f"{self.path}, {where}")


def _index(path: Path) -> dict[str, tuple[int, int]]:
    """Context id -> (byte offset, 1-based line number), reading only each line's key."""
    offsets: dict[str, tuple[int, int]] = {}
    offset = 0
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            start = len(_BOM) if number == 1 and raw.startswith(_BOM) else 0
            if raw.strip():
                match = _KEY.match(raw, start)
                if match is None:
                    raise PersonaMemDataError(
                        f"{path}, line {number}: does not begin with a JSON object key "
                        '(each line must be {"<shared_context_id>": [messages]})'
                    )
                try:
                    context_id = json.loads(b'"' + match.group(1) + b'"')
                except UnicodeDecodeError as ex:
                    raise PersonaMemDataError(
                        f"{path}, line {number}: the context id holds byte "
                        f"0x{ex.object[ex.start]:02x}, which is not UTF-8 (the file must be "
                        "UTF-8)"
                    ) from None
                if context_id in offsets:
                    raise PersonaMemDataError(
                        f"{path}, line {number}: context {context_id!r} also on line "
                        f"{offsets[context_id][1]}"
                    )
                offsets[context_id] = (offset + start, number)
            offset += len(raw)
    return offsets


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


@functools.lru_cache(maxsize=8)
def open_context_store(path: Path) -> ContextStore:
    """The one store per context file in this process, shared by dataset and solver."""
    return ContextStore(path)


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
