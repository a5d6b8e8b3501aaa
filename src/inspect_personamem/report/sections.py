"""A dataset version's part of the report: the sections every version's runs get, and
what a version's own sections (`DatasetVersion.report_sections`) are drawn with.

The report reads no version by name: each version with runs in the logs gives its part
of the page, in the registry's order. By default that part is `ReportContext.common`
(overall, graders of open answers, runs, accuracy per value of each of its groups,
every estimate); a version with more to show (published numbers, the paper's figures)
builds its part in its own package from the tables and figures here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.graded import graded, grader_table
from inspect_personamem.report.html_page import FigureFile
from inspect_personamem.report.tables import (
    Table,
    estimates_table,
    group_table,
    overall_table,
    runs_table,
)

Section = Table | FigureFile
"""What the page shows, in order: a table or a figure."""


@dataclass(frozen=True)
class Inclusion:
    """Which runs over other questions than the published numbers' are compared with
    them all the same (runs on synthetic data never are)."""

    subsets: bool = False
    """Runs over part of their split (`--include-subsets`)."""
    unreleased: bool = False
    """Runs on another question file than the released one (`--include-unreleased-data`)."""

    def leaves_out(self, summary: RunSummary) -> bool:
        """Whether a run on synthetic data, or (unless included) over part of its split
        or on other data than the released file, is left out of the comparison with
        published numbers; the summary says why, once for all such runs
        (`glance.caveat_lines`)."""
        run = summary.run
        return bool(
            run.synthetic
            or (run.subset and not self.subsets)
            or (run.unreleased and not self.unreleased)
        )


@dataclass(frozen=True)
class ReportContext:
    """What a version's part of the report is drawn with, and where it goes."""

    figures: ModuleType
    """`report.figures` (matplotlib loaded)."""
    out: Path
    """The report's folder."""
    folder: Path
    """Where figures are written."""
    title: str
    """Added to every figure's title."""
    name_overrides: Mapping[str, str]
    """Inspect model name -> published name (`--published-name MODEL=NAME`)."""
    include: Inclusion
    notes: list[str]
    """The page's notes: a version's comparisons add what they say."""

    def figure(self, caption: str, paths: Sequence[Path]) -> FigureFile:
        """A drawn figure, its files relative to the report's folder."""
        return FigureFile(caption, tuple(path.relative_to(self.out) for path in paths))

    def common(
        self, version: DatasetVersion[Any], summaries: Sequence[RunSummary]
    ) -> list[Section]:
        """The sections every version's runs get, named `<key>_<table>` and titled
        after the version: overall, the graders of open answers (where a grader named
        candidates), the runs, accuracy per value of each group, every estimate."""
        prefix = f"{version.key}_"
        tables = [
            overall_table(summaries, version, f"{prefix}overall"),
            *([grader_table(summaries, f"{prefix}graders")] if graded(summaries) else []),
            runs_table(summaries, f"{prefix}runs"),
            *(
                group_table(
                    summaries, group, f"{prefix}{group.metric}", f"Accuracy per {group.title}"
                )
                for group in version.groups
            ),
            estimates_table(summaries, version.groups, f"{prefix}estimates"),
        ]
        return [titled(table, version) for table in tables]


def titled(table: Table, version: DatasetVersion[Any]) -> Table:
    """`table` with its title after the version's name (`PersonaMem: ...`)."""
    return replace(table, title=f"{version.name}: {table.title}")
