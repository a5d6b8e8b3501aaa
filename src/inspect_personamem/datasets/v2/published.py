"""The numbers published about PersonaMem-v2 (`PUBLISHED.md`, `published.csv`): the
paper's, and vendors' self-reported ones; a report sets runs beside them."""

from __future__ import annotations

import csv
import io
from functools import cache
from importlib.resources import files

from inspect_personamem.datasets.declared import PublishedNumber

PAPER_RANGE = "frontier LLMs (a range)"
"""The system of the paper's range for frontier LLMs (37-48%), a band in the figure."""


@cache
def published_v2() -> tuple[PublishedNumber, ...]:
    """The numbers published about PersonaMem-v2, the paper's first."""
    text = (files(__package__) / "published.csv").read_text(encoding="utf-8")
    _, *rows = csv.reader(io.StringIO(text))  # kind, system, model, low, high, source, deviations
    return tuple(
        PublishedNumber(kind, system, model, float(low), float(high), source, deviations)
        for kind, system, model, low, high, source, deviations in rows
    )


def paper_range() -> PublishedNumber:
    """The paper's range for frontier LLMs on PersonaMem-v2."""
    return next(p for p in published_v2() if p.system == PAPER_RANGE)
