"""PersonaMem-v2 histories: one file per persona and length, read once, shared by all of
that persona's questions.

A history file is `{"metadata": {...}, "chat_history": [{"role", "content"}, ...]}`.
As the authors' code does, the messages are the first value of the top-level object
that is a list (here `chat_history`); a file with none is an error. Message 0 is the
system message carrying the persona card; the turns that follow need not alternate.
Messages become Inspect messages with their text byte for byte (`data.contexts`'s
conversion, as v1's). The file is UTF-8 (a byte-order mark at its start is allowed);
a missing, unreadable or malformed file is a one-line error naming the persona and
the path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from inspect_ai.model import ChatMessage

from inspect_personamem.data.contexts import chat_messages
from inspect_personamem.datasets.v2.files import locate_history
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.spec import Length, V2Source
from inspect_personamem.errors import PersonaMemDataError


class HistoryStore:
    """The histories of one source at one length, each read the first time a question
    of its persona asks for it."""

    def __init__(self, source: V2Source, length: Length) -> None:
        self.source = source
        self.length = length
        self._loaded: dict[str, tuple[ChatMessage, ...]] = {}

    def messages(self, record: V2Record) -> tuple[ChatMessage, ...]:
        """The whole history `record` links (system message included), shared between
        the questions that link the same file."""
        link = record.history_link(self.length)
        loaded = self._loaded.get(link)
        if loaded is None:
            path = locate_history(self.source, record, self.length)
            where = f"{path} (persona {record.persona_id}'s {self.length} history)"
            loaded = read_history(path, where)
            self._loaded[link] = loaded
        return loaded


def read_history(path: Path, where: str) -> tuple[ChatMessage, ...]:
    """The messages of the history file at `path`; errors begin with `where`."""
    try:
        text = path.read_bytes().decode("utf-8-sig", "surrogateescape")
    except OSError as ex:
        raise PersonaMemDataError(f"{where}: not readable ({ex.strerror or ex})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as ex:
        raise PersonaMemDataError(
            f"{where}: not valid JSON, the file may be truncated ({ex.msg} at character "
            f"{ex.pos} of {len(text)})"
        ) from None
    if not isinstance(value, dict):
        raise PersonaMemDataError(
            f'{where}: expected a JSON object {{"metadata": ..., "chat_history": [messages]}}'
        )
    key = next((key for key, item in value.items() if isinstance(item, list)), None)
    if key is None:
        keys = ", ".join(map(repr, list(value)[:5])) or "none"
        raise PersonaMemDataError(
            f"{where}: no list of messages among the top-level values (keys: {keys})"
        )
    return chat_messages(value[key], f"{where}, {key!r}")


class PersonaContexts:
    """The histories of a set of questions under the interface history sources read
    (`data.contexts.Contexts`): a context is a persona's whole history file, named by
    its link; a question's history is all of it (its `end_index` is the file's length)."""

    def __init__(self, store: HistoryStore, records: Iterable[V2Record]) -> None:
        self.store = store
        self._records = {record.history_link(store.length): record for record in records}

    def messages(self, context_id: str) -> tuple[ChatMessage, ...]:
        return self.store.messages(self._records[context_id])

    def history(self, context_id: str, end_index: int) -> tuple[ChatMessage, ...]:
        return self.messages(context_id)[:end_index]
