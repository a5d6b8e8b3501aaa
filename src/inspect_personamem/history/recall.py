"""Did a retrieval find the evidence: for `history=rag` and `history=memory`, per question.

A retrieved item is checked against the question's evidence (`data.evidence`) by its
history position. The question's status is one of `STATUSES`:

- `found`: an item lies in the evidence; `first_rank` is the rank (from 1) of the
  first such item, and `recall` the evidence messages retrieved over as many as the
  run retrieved (`top_k`), or as the evidence holds where that is fewer: 1.0 for a
  retriever that returns nothing but evidence.
- `missed`: every item has a position and none lies in the evidence (no item at all
  is a miss too); `recall` 0.0.
- `unpositioned`: no item lies in the evidence, but some carry no position (a memory
  system's derived facts): whether they hold the evidence cannot be told, so the
  question is counted apart, never as a miss.
- `not_located`: the evidence could not be located in the history (a v1 distance
  past the first session, a v2 snippet not found): counted apart as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from inspect_personamem.data.evidence import Evidence
from inspect_personamem.history.memory.interface import MemoryItem

Status = Literal["found", "missed", "unpositioned", "not_located"]
STATUSES: Final[tuple[Status, ...]] = ("found", "missed", "unpositioned", "not_located")
"""A question's retrieval statuses, in the order reports show them."""
CHECKED: Final[frozenset[str]] = frozenset({"found", "missed"})
"""The statuses whose questions count in recall: the others are counted apart."""


@dataclass(frozen=True)
class Recall:
    """What one question's retrieval found of its evidence (a sample's `retrieval`)."""

    status: Status
    first_rank: int | None
    """The rank, from 1, of the first item in the evidence; None where none is."""
    recall: float | None
    """Evidence messages retrieved over `min(k, evidence messages)`; None where the
    status is neither found nor missed."""
    k: int
    """Items asked for (`top_k`)."""
    items: int
    """Items returned."""
    positioned: int
    """Items returned that name a history position."""

    def record(self) -> dict[str, Any]:
        return asdict(self)


def recall_of(items: Sequence[MemoryItem], evidence: Evidence, k: int) -> Recall:
    """How the `items` a retrieval returned (most relevant first) stand to `evidence`."""
    positions = [item.position for item in items if item.position is not None]
    counts = {"k": k, "items": len(items), "positioned": len(positions)}
    if not evidence.located:
        return Recall("not_located", None, None, **counts)
    ranks = [
        rank
        for rank, item in enumerate(items, start=1)
        if item.position is not None and evidence.holds(item.position)
    ]
    if ranks:
        hits = {p for p in positions if evidence.holds(p)}
        return Recall("found", ranks[0], len(hits) / min(k, evidence.size), **counts)
    if len(positions) < len(items):
        return Recall("unpositioned", None, None, **counts)
    return Recall("missed", None, 0.0, **counts)
