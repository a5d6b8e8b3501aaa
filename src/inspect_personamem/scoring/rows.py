"""Questions a version's headline counts together, as one row: PersonaMem-v3's
lifecycle pair, whose pre and post probes make one row, (1 + pre - post) / 2. A scorer
sees one question at a time, so each such question's score says in its metadata
(`PART_KEY`) which row it is part of, its side and its share of the row's value
(`offset + weight x` its value); the metrics and the report join the parts the same
way (`joined`), so the report's recomputed headline is the log's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar

PART_KEY = "part_of"
"""The score metadata key of a question's `Part`."""

T = TypeVar("T")


@dataclass(frozen=True)
class Part:
    """A question's place in a row made of several."""

    row: str
    """The row's id, unique in the run."""
    side: str
    """Which part it is (a later question of the same side replaces an earlier one)."""
    parts: int
    """How many sides make the row whole."""
    offset: float
    weight: float
    """Its share of the row's value: `offset + weight x` its own value."""

    def metadata(self) -> dict[str, Any]:
        """It as score metadata (`PART_KEY`)."""
        return asdict(self)

    @classmethod
    def of(cls, metadata: Mapping[str, Any] | None) -> Part | None:
        """The part a score's metadata records, if any."""
        part = (metadata or {}).get(PART_KEY)
        return cls(**part) if isinstance(part, dict) else None


@dataclass(frozen=True)
class Joined(Generic[T]):
    """A whole row: its parts' items, by side in the order first met, and its value."""

    items: tuple[T, ...]
    value: float


def joined(parts: Iterable[tuple[T, Part, float]]) -> tuple[list[Joined[T]], list[T]]:
    """The whole rows of `parts` (item, its part, its value), in the order their first
    part comes, and the items of the parts left without a whole row (counted nowhere)."""
    rows: dict[str, dict[str, tuple[T, Part, float]]] = defaultdict(dict)
    for item, part, value in parts:
        rows[part.row][part.side] = (item, part, value)
    whole: list[Joined[T]] = []
    left: list[T] = []
    for sides in rows.values():
        if len(sides) < next(iter(sides.values()))[1].parts:
            left.extend(item for item, _, _ in sides.values())
            continue
        value = math.fsum(part.offset + part.weight * v for _, part, v in sides.values())
        whole.append(Joined(tuple(item for item, _, _ in sides.values()), value))
    return whole, left
