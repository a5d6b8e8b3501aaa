"""PersonaMem's shared contexts: one parsed message list per context, shared by all its
questions.

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
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.model import ChatMessage

from inspect_personamem.data.contexts import chat_messages
from inspect_personamem.errors import PersonaMemDataError

_KEY = re.compile(rb'\{\s*"((?:[^"\\]|\\.)*)"\s*:')
_BOM = b"\xef\xbb\xbf"


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


@functools.lru_cache(maxsize=8)
def open_context_store(path: Path) -> ContextStore:
    """The one store per context file in this process, shared by dataset and solver."""
    return ContextStore(path)
