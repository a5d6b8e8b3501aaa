"""The two prompts around retrieved items (`-T memory_prompt=official|paper`).

`official` (default): the retrieved history messages, in their original order and
roles, stand in for the history (`retrieved_history`), and the answer adds what it
adds after any history (with `answer=choice`, the official final user message under
the `system_messages` policy), so a RAG run scores exactly like a full-history or
no-history run and compares with them.
Items that are not history messages (a memory system's facts) are sent as one
user message, `# User facts:` and one item a line, before the final user message.

`paper`: the authors' baseline prompt (their `baselines/` scripts), which their
Figure 5 numbers come from: under the system line `PAPER_SYSTEM`, one user message
with the retrieved items (most similar first, one a line), the question and the
options one a line; the model answers with one letter (read by the official
extraction, which takes a lone letter).

In both, an item that names a history position is shown as the message at that
position (in `paper`, its role and content as JSON, as the authors' retriever gave
it), never as the text the item carries: positions are checked by the pool, so what
the model sees of the history stays within `context[:end_index]`.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem
from inspect_personamem.history.memory.retrievers import embedded_text

PAPER_SYSTEM = "You are an AI that answers only with A, B, C, or D."
PAPER_HEADER = "# {top_k} most similar contexts to the question: "
"""The paper prompt's header over retrieved history messages."""
PAPER_TEMPLATE = "{header}\n{retrieved}\n\n# Question: {question}\n\n# Choices: \n{options}"
"""The paper prompt's user message: the header, the items, the question, the options."""
FACTS_HEADER = "# User facts:"


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


def paper_prompt(
    items: Sequence[MemoryItem],
    context: Sequence[ChatMessage],
    top_k: int,
    question: str,
    options: Sequence[str],
) -> list[ChatMessage]:
    """The authors' baseline prompt: retrieved items, question, options one a line."""
    retrieved = "\n".join(_paper_text(item, context) for item in items)
    header = (
        PAPER_HEADER.format(top_k=top_k)
        if any(item.position is not None for item in items) or not items
        else f"{FACTS_HEADER} "
    )
    text = PAPER_TEMPLATE.format(
        header=header, retrieved=retrieved, question=question, options="\n".join(options)
    )
    return [ChatMessageSystem(content=PAPER_SYSTEM), ChatMessageUser(content=text)]


def _paper_text(item: MemoryItem, context: Sequence[ChatMessage]) -> str:
    """An item as the paper prompt shows it: a history message as its role and content."""
    if item.position is None:
        return item.text
    message = context[item.position]
    return embedded_text(HistoryMessage(item.position, message.role, message.text))
