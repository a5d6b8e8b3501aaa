"""A version's runs beside the numbers published about it (`declared.Published`, which
the version declares): one generic table, whatever the version. A run is set beside
them, never equated with them: the harnesses behind them are not the task's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.declared import Published, PublishedNumber
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.tables import Cell, Table


def placement(summary: RunSummary, published: Published) -> str:
    """Where a run's point estimate falls against the published range (`range_system`);
    empty where the version declares none."""
    if not summary.overall.n:
        return "no question scored"
    if summary.run.judged:
        return "not comparable: a mean judge score"
    if summary.run.synthetic:
        return "not comparable: synthetic data"
    band = published.range()
    if band is None:
        return ""
    value = summary.overall.accuracy
    side = "below" if value < band.low else "above" if value > band.high else "inside"
    return f"{side} {band.shown}"


def deviations(summary: RunSummary, published: Published) -> str:
    """How a run differs from the authors' protocol: its settings off the defaults (the
    defaults are the authors' protocol), and what every run differs in."""
    run = summary.run
    changed = run.changed_settings
    if run.judged and not run.self_graded:
        changed.append("judged by the grader role (the authors judge with the model itself)")
    always = published.every_run_deviates
    if changed:
        return "; ".join([", ".join(changed), *([always] if always else [])])
    return published.unchanged


def _published_row(p: PublishedNumber) -> tuple[Cell, ...]:
    single = p.low == p.high
    return (
        p.kind, p.system, p.model or "not stated", p.low if single else math.nan,
        math.nan if single else p.low, math.nan if single else p.high, "", p.source,
        p.deviations,
    )  # fmt: skip


def published_table(
    summaries: Sequence[RunSummary], version: DatasetVersion[Any], published: Published
) -> Table:
    """The runs beside every number published about the version (`<key>_published`),
    upper bounds (`Run.upper_bound`: no method's result) aside."""
    runs: tuple[tuple[Cell, ...], ...] = tuple(
        (
            "this report" + (", mean judge score" if s.run.judged else ""),
            s.label,
            s.run.model,
            s.overall.accuracy,
            s.overall.low,
            s.overall.high,
            placement(s, published),
            f"Inspect log {Path(s.run.location).name}",
            deviations(s, published),
        )  # fmt: skip
        for s in summaries
        if not s.run.upper_bound
    )
    band = published.range()
    return Table(
        f"{version.key}_published",
        f"Beside the published {version.name} numbers",
        published.note if band is None else published.note.format(range=band.shown),
        (
            "kind",
            "system or run",
            "model",
            "accuracy",
            "low",
            "high",
            "against the paper's range",
            "source",
            "deviations from the authors' protocol",
        ),  # fmt: skip
        runs + tuple(_published_row(p) for p in published.numbers()),
    )
