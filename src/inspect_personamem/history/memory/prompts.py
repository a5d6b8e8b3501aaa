"""The prompts around retrieved items (`-T memory_prompt=...`).

`official` (default): the retrieved history messages, in their original order and
roles, stand in for the history (`retrieved_history`), and the answer adds what it
adds after any history (with `answer=choice`, the official final user message under
the `system_messages` policy), so a RAG run scores exactly like a full-history or
no-history run and compares with them.
Items that are not history messages (a memory system's facts) are sent as one
user message, `# User facts:` and one item a line, before the final user message.

Any other: a whole prompt a dataset version offers (`OwnPrompt`, in its
`DatasetVersion.memory_prompts`: PersonaMem's `paper`, its authors' baseline prompt).

In all, an item that names a history position is shown as the message at that
position, never as the text the item carries: positions are checked by the pool, so
what the model sees of the history stays within `context[:end_index]`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from inspect_ai.model import ChatMessage, ChatMessageUser
from inspect_ai.solver import TaskState

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import MemoryItem

OFFICIAL = "official"
"""The prompt every version has: the items as the history (`retrieved_history`)."""
FACTS_HEADER = "# User facts:"


@dataclass(frozen=True)
class OwnPrompt:
    """A whole prompt around retrieved items that a dataset version offers in place of
    the official one (`-T memory_prompt=NAME`): it puts the items, the question and
    whatever else it shows in one prompt, which replaces the answer's composition."""

    compose: Callable[
        [Sequence[MemoryItem], Sequence[ChatMessage], int, TaskState], list[ChatMessage]
    ]
    """(the items, the question's whole context, `top_k`, the sample's state) -> the
    prompt."""
    texts: Mapping[str, str]
    """Its fixed texts by where they are defined (`module.py:NAME`), for a results card."""
    words: str
    """What it is, for an error refusing it."""
    answers: tuple[str, ...] = ("choice",)
    """The answers whose prompt it is (`-T answer=`); the others compose their own."""


def own_prompt(offered: Mapping[str, OwnPrompt], name: str) -> OwnPrompt | None:
    """The prompt `-T memory_prompt=name` names among those a version `offered`: None
    for the official one; a one-line error for one it does not offer."""
    if name == OFFICIAL:
        return None
    if name not in offered:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter memory_prompt={name!r}: this dataset version offers "
            f"{', '.join((OFFICIAL, *offered))}"
        )
    return offered[name]


def retrieved_history(
    items: Sequence[MemoryItem], context: Sequence[ChatMessage]
) -> list[ChatMessage]:
    """The items as a history: the retrieved messages in their original order and roles,
    then a memory system's facts as one user message (the `official` prompt adds the
    question after them, as after any history)."""
    positions = sorted({item.position for item in items if item.position is not None})
    history: list[ChatMessage] = [context[position] for position in positions]
    facts = [item.text for item in items if item.position is None]
    if facts:
        history.append(ChatMessageUser(content="\n".join([FACTS_HEADER, *facts])))
    return history
