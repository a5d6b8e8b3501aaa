"""Where a PersonaMem-v2 question's evidence lies: its `related_conversation_snippet`.

The snippet is a list of messages of the persona's history. `history=evidence` shows
them after the history's persona card (its system message, as the authors send the
history), and a retrieved history message is evidence where it equals a snippet
message (role and text, byte for byte). A snippet none of whose messages is found in
the history is not located: a retriever's items are counted apart for it, never as
misses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from inspect_ai.model import ChatMessage

from inspect_personamem.data.contexts import chat_messages
from inspect_personamem.data.evidence import Evidence, spans_of

SNIPPET: Final = "related_conversation_snippet"
"""The label column holding the evidence, kept in a sample's metadata only for a run
whose history source reads the evidence."""


def snippet_record(snippet: Sequence[Any], where: str) -> list[dict[str, str]]:
    """A row's snippet, checked to be a list of messages (a one-line error beginning
    with `where` otherwise), as a sample's metadata keeps it."""
    return [
        {"role": message.role, "content": message.text}
        for message in chat_messages(list(snippet), where)
    ]


def snippet_evidence(history: Sequence[ChatMessage], metadata: Mapping[str, Any]) -> Evidence:
    """The history messages equal to the snippet's, and the persona card then the
    snippet as `history=evidence` shows them."""
    snippet = chat_messages(metadata[SNIPPET], f"sample metadata {SNIPPET}")
    wanted = {(message.role, message.text) for message in snippet}
    positions = [i for i, m in enumerate(history) if (m.role, m.text) in wanted]
    card = tuple(history[:1]) if history and history[0].role == "system" else ()
    spans = spans_of(positions)
    if not snippet:
        where = "the row has no snippet"
    elif not spans:
        where = f"{len(snippet)} snippet message(s), none found in the history: not located"
    else:
        runs = ", ".join(f"{start}-{end - 1}" for start, end in spans)
        where = f"{len(snippet)} snippet message(s), at history messages {runs}"
    return Evidence(spans, (*card, *snippet), where)
