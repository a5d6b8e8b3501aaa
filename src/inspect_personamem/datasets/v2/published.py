"""The numbers published about PersonaMem-v2 (`PUBLISHED.md`, `published.csv`): the
paper's, and vendors' self-reported ones; a report sets runs beside them."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

PAPER_RANGE = "frontier LLMs (a range)"
"""The system of the paper's range for frontier LLMs (37-48%), a band in the figure."""


@dataclass(frozen=True)
class PublishedV2:
    """One number published about PersonaMem-v2 (`PUBLISHED.md`): the paper's, or a
    vendor's, self-reported through its own harness."""

    kind: str
    """`paper` or `self-reported`."""
    system: str
    model: str
    """The answering model where the source names one, else empty."""
    low: float
    high: float
    """Equal to `low` for a single number; the paper's frontier LLMs are a range."""
    source: str
    deviations: str
    """How its harness differs from the authors' protocol, as far as known."""

    @property
    def shown(self) -> str:
        """The number as a table shows it: `0.406` or `0.37-0.48`."""
        return f"{self.low:.3f}" if self.low == self.high else f"{self.low:.2f}-{self.high:.2f}"


@cache
def published_v2() -> tuple[PublishedV2, ...]:
    """The numbers published about PersonaMem-v2, the paper's first."""
    text = (files(__package__) / "published.csv").read_text(encoding="utf-8")
    _, *rows = csv.reader(io.StringIO(text))  # kind, system, model, low, high, source, deviations
    return tuple(
        PublishedV2(kind, system, model, float(low), float(high), source, deviations)
        for kind, system, model, low, high, source, deviations in rows
    )


def paper_range() -> PublishedV2:
    """The paper's range for frontier LLMs on PersonaMem-v2."""
    return next(p for p in published_v2() if p.system == PAPER_RANGE)
