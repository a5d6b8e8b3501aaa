"""`-T memory_prompt=paper`: PersonaMem's authors' baseline prompt around retrieved items
(their `baselines/` scripts), which their Figure 5 numbers come from.

Under the system line `PAPER_SYSTEM`, one user message with the retrieved items (most
similar first, one a line), the question and the options one a line; the model answers
with one letter (read by the official extraction, which takes a lone letter). An item
that names a history position is shown as that message's role and content as JSON, as
the authors' retriever gave it, never as the text the item carries.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import TaskState

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.options import lettered, shown_options
from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem
from inspect_personamem.history.memory.prompts import FACTS_HEADER, OwnPrompt
from inspect_personamem.history.memory.retrievers import embedded_text

PAPER_SYSTEM = "You are an AI that answers only with A, B, C, or D."
PAPER_HEADER = "# {top_k} most similar contexts to the question: "
"""The paper prompt's header over retrieved history messages."""
PAPER_TEMPLATE = "{header}\n{retrieved}\n\n# Question: {question}\n\n# Choices: \n{options}"
"""The paper prompt's user message: the header, the items, the question, the options."""


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


def _sample_paper_prompt(
    items: Sequence[MemoryItem], context: Sequence[ChatMessage], top_k: int, state: TaskState
) -> list[ChatMessage]:
    """The paper prompt of a sample: its question and its options as shown, lettered."""
    options = lettered(shown_options(state))
    return paper_prompt(items, context, top_k, AskedAt.of(state.metadata).message, options)


_WHERE = "datasets/v1/paper_prompt.py"
PAPER = OwnPrompt(
    _sample_paper_prompt,
    {
        f"{_WHERE}:PAPER_SYSTEM": PAPER_SYSTEM,
        f"{_WHERE}:PAPER_HEADER": PAPER_HEADER,
        f"{_WHERE}:PAPER_TEMPLATE": PAPER_TEMPLATE,
    },
    "the authors' multiple-choice prompt (the model names a letter)",
)
"""`memory_prompt=paper`, as PersonaMem offers it."""
