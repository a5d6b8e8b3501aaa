"""A dataset version's part of the report: the sections every version's runs get, and
what the layouts a version declares (`layouts.py`) are drawn with.

The report reads no version by name: each version with runs in the logs gives its part
of the page, in the registry's order. By default that part is `ReportContext.common`
(overall, graders of open answers, runs, accuracy per value of each of its groups,
cost beside accuracy and per point gained, every estimate); a version with more to
show (published numbers, the paper's figures) declares it as data
(`DatasetVersion.reported`) and the report's module for its layout draws it from the
tables and figures here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from inspect_personamem.cost.prices import load_prices
from inspect_personamem.datasets.base import DatasetVersion, Group
from inspect_personamem.report.accuracy import OPTION_SCORINGS, RunSummary, title_of
from inspect_personamem.report.costs import run_costs
from inspect_personamem.report.costs_tables import cost_table
from inspect_personamem.report.graded_tables import grader_tables
from inspect_personamem.report.html_page import FigureFile
from inspect_personamem.report.pairs import gain_pairs
from inspect_personamem.report.retrieval import evidence_groups, retrieval_runs
from inspect_personamem.report.retrieval_tables import (
    evidence_bounds_table,
    evidence_use_table,
    memory_cost_table,
)
from inspect_personamem.report.tables import (
    TRANSPOSE_AT,
    Table,
    estimates_table,
    group_table,
    overall_table,
    runs_table,
    shown_values,
)
from inspect_personamem.report.tool_use import tool_use_table

if TYPE_CHECKING:  # figures.py needs matplotlib, loaded by the report when it draws
    from inspect_personamem.report.figures import Colour

Section = Table | FigureFile
"""What the page shows, in order: a table or a figure."""


@dataclass(frozen=True)
class Inclusion:
    """Which runs over other questions than the published numbers' are compared with
    them all the same (runs on synthetic data never are, nor upper bounds)."""

    subsets: bool = False
    """Runs over part of their split (`--include-subsets`)."""
    unreleased: bool = False
    """Runs on another question file than the released one (`--include-unreleased-data`)."""

    def leaves_out(self, summary: RunSummary) -> bool:
        """Whether a run on synthetic data, an upper bound (`Run.upper_bound`: no method
        result), or (unless included) a run over part of its split or on other data
        than the released file, is left out of the comparison with published numbers;
        the summary says why, once for all such runs (`glance.caveat_lines`)."""
        run = summary.run
        return bool(
            run.synthetic
            or run.upper_bound
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
        """The sections every version's runs get, named `<key>_<table>` and titled after
        the version: overall, the graders of open answers, their trials and their agreement
        (where a grader named candidates: `graded_tables.grader_tables`), the runs, accuracy
        per value of each group (but the one the first screen shows, `Reported.at_a_glance`:
        no table twice), each run's cost beside its accuracy and per point gained
        over its no-history run (`costs_tables.cost_table`), what the runs with tools did
        with them beside every run (`tool_use.tool_use_table`, where any had tools), what
        the retrieval runs' memories did (`retrieval`), every estimate."""
        prefix = f"{version.key}_"
        prices = load_prices()
        costs = run_costs([s for s in summaries if s.overall.n], prices)
        colours = self.figures.palette(summaries)
        chance = self.chance(summaries)
        first = version.reported.at_a_glance
        drawn: dict[str, list[Section]] = {
            g.key: [*self.group_figures(summaries, g, version, colours, chance)]
            for g in version.groups
        }
        tables: list[Section] = [
            overall_table(summaries, version, f"{prefix}overall"),
            *drawn.get(first or "", []),  # its table is on the first screen
            *grader_tables(summaries, prefix),
            runs_table(summaries, f"{prefix}runs"),
            *(
                section
                for group in version.groups
                if group.key != first  # on the first screen: no table twice
                for section in [
                    *drawn[group.key],
                    group_table(
                        summaries, group, f"{prefix}{group.metric}", f"Accuracy per {group.title}"
                    ),
                ]
            ),
            self.figure(
                "Accuracy against input tokens per question, no-history runs as reference lines",
                self.figures.cost_figure(
                    costs, colours, self.folder, self.title, f"{prefix}cost", chance
                ),
            ),
            cost_table(costs, gain_pairs(summaries), prices, f"{prefix}cost"),
            *self.tool_use(summaries, prefix, colours),
            *self.retrieval(version, summaries, prefix),
            estimates_table(summaries, version.groups, f"{prefix}estimates"),
        ]
        return [titled(section, version) for section in tables]

    def tool_use(
        self, summaries: Sequence[RunSummary], prefix: str, colours: Mapping[str, Colour]
    ) -> list[Section]:
        """Where any run had tools, its figure and table (`tool_use.tool_use_table`),
        every run in each; nothing where none had."""
        table = tool_use_table(summaries, f"{prefix}tool_use")
        if table is None:
            return []
        figure = self.figure(
            "Tool use per question with tools: calls, reads, writes, turns",
            self.figures.tool_use_figure(
                summaries, colours, self.folder, f"{prefix}tool_use", self.title
            ),
        )
        return [figure, table]

    def chance(self, summaries: Sequence[RunSummary]) -> float | None:
        """Where the figures draw chance: where every run chose one of four options
        (`accuracy.OPTION_SCORINGS`), none where a run is scored otherwise (PersonaMem-v3's
        rules and judges: no option to guess)."""
        options = all(s.run.scored_as in OPTION_SCORINGS for s in summaries)
        return float(self.figures.CHANCE) if options else None

    def group_figures(
        self,
        summaries: Sequence[RunSummary],
        group: Group,
        version: DatasetVersion[Any],
        colours: Mapping[str, Colour],
        chance: float | None,
    ) -> list[FigureFile]:
        """Every run's accuracy per value of `group` with intervals, where the group has
        known values (`Group.values`; none for a group of free names): one figure, or,
        for more values than `TRANSPOSE_AT`, one per part (`figure_parts`: a task family's
        task types)."""
        if not group.values:
            return []
        stem = f"{version.key}_{group.metric}"
        parts = figure_parts(summaries, group, version.groups)
        return [
            self.figure(
                f"Accuracy per {group.title}" + (f": {part[0]}" if part else ""),
                self.figures.group_figure(
                    summaries,
                    group,
                    colours,
                    self.folder,
                    f"{stem}_{i}_{self.figures.slug(part[0])}" if part else stem,
                    self.title,
                    part,
                    chance,
                ),  # fmt: skip
            )
            for i, part in enumerate(parts, start=1)
        ]

    def retrieval(
        self, version: DatasetVersion[Any], summaries: Sequence[RunSummary], prefix: str
    ) -> list[Section]:
        """What the memory of each retrieval run (`history=rag`, `history=memory`) did,
        every version's part has it: per run whose retrieval was checked a figure of
        found against used, then the tables found against used (`<prefix>evidence_use`)
        and the runs against their upper bound and the full history
        (`<prefix>evidence_bounds`, where one of those was run), and for every retrieval
        run what the memory took (`<prefix>memory_cost`); none without such runs."""
        runs = retrieval_runs(summaries)
        if not runs:
            return []
        groups = evidence_groups(version)
        checked = [r for r in runs if r.checked]
        figures = [
            self.figure(
                f"Found against used: {r.summary.label}. Bars: its questions as shares, "
                "right, wrong although the evidence was found (misuse), wrong and "
                "missed, wrong and not checked; lines: the upper bound's and the full "
                "history's accuracy on the same questions",
                self.figures.evidence_figure(
                    r,
                    groups,
                    self.folder,
                    f"{prefix}evidence_{i}_{self.figures.slug(r.summary.label)}",
                    self.title,
                ),
            )
            for i, r in enumerate(checked, start=1)
        ]
        bounds = [r for r in checked if r.references]
        return [
            *figures,
            *([evidence_use_table(checked, version, f"{prefix}evidence_use")] if checked else []),
            *(
                [evidence_bounds_table(bounds, version, f"{prefix}evidence_bounds")]
                if bounds
                else []
            ),
            memory_cost_table(runs, f"{prefix}memory_cost"),
        ]


def figure_parts(
    summaries: Sequence[RunSummary], group: Group, groups: Sequence[Group]
) -> list[tuple[str, list[str]] | None]:
    """How the values of `group` some run has (`shown_values`) are drawn: in one figure
    (`[None]`) up to `TRANSPOSE_AT` of them; past that, one figure per value of another
    group with known values that holds each of them whole (every question of a task type
    is of one family), named by its title, else in parts of `TRANSPOSE_AT`."""
    values = shown_values(summaries, group)
    if len(values) <= TRANSPOSE_AT:
        return [None]
    samples = [sample for s in summaries for sample in s.run.samples]
    for outer in groups:
        if outer is group or not outer.values or len(outer.values) >= len(values):
            continue
        within: dict[str, set[str]] = defaultdict(set)
        for sample in samples:
            within[sample.groups[group.key]].add(sample.groups[outer.key])
        if all(len(found) == 1 for found in within.values()):
            by = {v: next(iter(within[v])) for v in values}
            return [
                (title_of(outer, o), [v for v in values if by[v] == o])
                for o in shown_values(summaries, outer)
            ]
    return [
        (
            f"{start + 1}-{min(start + TRANSPOSE_AT, len(values))} of {len(values)}",
            values[start : start + TRANSPOSE_AT],
        )
        for start in range(0, len(values), TRANSPOSE_AT)
    ]


def titled(section: Section, version: DatasetVersion[Any]) -> Section:
    """A table with its title after the version's name (`PersonaMem: ...`), a figure
    with its caption so."""
    if isinstance(section, Table):
        return replace(section, title=f"{version.name}: {section.title}")
    return replace(section, caption=f"{version.name}: {section.caption}")
