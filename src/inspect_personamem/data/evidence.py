"""Where a question's evidence lies in its history, as its dataset version locates it.

Each version declares the rule (`DatasetVersion.evidence`): PersonaMem's is the session
holding the message `distance_to_ref_in_tokens` before the question, else the session
`distance_to_ref_in_blocks - 1` before the question's own (approximate, see
docs/memory-and-retrieval.md), PersonaMem-v2's the history messages equal to the
`related_conversation_snippet` messages. The evidence is what `history=evidence` shows
(the upper bound) and what a retriever's items are checked against (`history.recall`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ChatMessage

Span = tuple[int, int]
"""History positions `[start, end)`."""


@dataclass(frozen=True)
class Evidence:
    """A question's evidence: the history positions it lies at, and what
    `history=evidence` shows of it."""

    spans: tuple[Span, ...]
    """The history positions of the evidence (before the question's end index), as
    `[start, end)` spans; empty where it could not be located in the history."""
    shown: tuple[ChatMessage, ...]
    """The messages `history=evidence` sends before the question."""
    where: str
    """Where it lies, in words, for the log: `session 3 of 7 (messages 52-87)`."""
    rule: str = ""
    """Which of its version's rules located it, where the version has more than one
    (PersonaMem's `tokens` or `sessions`); empty where it has one."""

    @property
    def located(self) -> bool:
        """Whether the evidence lies at known history positions (a retriever's items can
        be checked against it)."""
        return bool(self.spans)

    @property
    def size(self) -> int:
        """The history messages the evidence spans."""
        return sum(end - start for start, end in self.spans)

    def holds(self, position: int) -> bool:
        """Whether the history message at `position` is part of the evidence."""
        return any(start <= position < end for start, end in self.spans)

    def record(self) -> dict[str, Any]:
        """What a sample's metadata keeps of it (`evidence`), small enough for Inspect's
        sample summaries."""
        return {
            "located": self.located,
            "spans": [list(span) for span in self.spans],
            "messages": self.size,
            "where": self.where,
            **({"rule": self.rule} if self.rule else {}),
        }


def spans_of(positions: Sequence[int]) -> tuple[Span, ...]:
    """Sorted positions as maximal `[start, end)` runs: 3, 4, 5, 9 -> (3, 6), (9, 10)."""
    spans: list[list[int]] = []
    for position in sorted(set(positions)):
        if spans and spans[-1][1] == position:
            spans[-1][1] = position + 1
        else:
            spans.append([position, position + 1])
    return tuple((start, end) for start, end in spans)
