"""Paired differences between two runs over the same questions, with their uncertainty.

Two runs scored on the same questions are compared question by question: d = a - b for
each question both scored, so what the questions have in common (some are easy for every
method) cancels out, and the difference is far more precise than two separate intervals
suggest. Questions over one history are correlated, so the standard error is clustered
by shared history (the version's `cluster`): the deviations are summed per context,
squared and added, times the small-sample factor G/(G-1) (G contexts), as Inspect's
`stderr(cluster=...)` does for an accuracy. The 95% interval is the difference ±
Student's t(G-1) × that error, kept inside [-1, 1] (with few contexts t is large). Where
the error cannot be estimated (one context, or every question's difference the same,
which gives 0) the error and interval are left blank rather than shown as a point.

The macro average (the mean of the accuracies of the values of the version's
`mean_group`, PersonaMem's question types) is a weighted mean of the d's, a question
weighing 1 / (values × its value's questions); its clustered error sums each
question's weighted deviation from its value's mean difference.
With one value that is the plain mean and its error, so one formula serves both
(`scoring.intervals.stratified_mean`, which a version's own metrics use too).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from inspect_personamem.datasets.base import Group
from inspect_personamem.report.accuracy import RunSummary, title_of
from inspect_personamem.report.read.samples import SampleResult
from inspect_personamem.scoring.intervals import Clustered, stratified_mean


@dataclass(frozen=True)
class Difference:
    """A paired difference (run minus the run it is compared with) and its interval."""

    n: int
    """Questions both runs scored (in the group compared)."""
    contexts: int
    difference: float
    stderr: float
    """Clustered by shared context; NaN with fewer than two contexts, or where every
    question's difference is the same (an error of 0 would claim certainty)."""
    low: float
    high: float
    alike: bool = False
    """Whether both runs scored each question alike (every difference 0): a row of 0
    with no interval, which says nothing a count does not (`informative`)."""

    @property
    def distinguishable(self) -> str:
        """`yes` where the 95% interval excludes 0, `no` where it holds it, blank where
        there is no interval."""
        if math.isnan(self.low):
            return ""
        return "yes" if self.low > 0 or self.high < 0 else "no"


def paired_difference(
    a: Sequence[SampleResult],
    b: Sequence[SampleResult],
    stratum: Callable[[SampleResult], str] = lambda sample: "",
) -> Difference:
    """`a` minus `b` over the questions both scored: the mean over strata (values of the
    `mean_group` for the macro average; one stratum by default) of the stratum's mean
    difference."""
    other = {sample.id: sample.value for sample in b}
    paired = [(sample, sample.value - other[sample.id]) for sample in a if sample.id in other]
    if not paired:
        return Difference(0, 0, math.nan, math.nan, math.nan, math.nan)
    mean = stratified_mean([Clustered(s.context_id, stratum(s), d) for s, d in paired])
    if not mean.stderr:  # one context, or every difference the same: no spread to go by
        alike = all(d == 0 for _, d in paired)
        nan = math.nan
        return Difference(len(paired), mean.clusters, mean.value, nan, nan, nan, alike)
    half = mean.half_width()
    low, high = max(-1.0, mean.value - half), min(1.0, mean.value + half)
    return Difference(len(paired), mean.clusters, mean.value, mean.stderr, low, high)


Groups = Mapping[str, Callable[[SampleResult], bool]]
"""Groups of questions: a group's title -> whether a question is in it."""


def known_groups(group: Group) -> Groups:
    """The known values of `group` (`Group.values`), by title, in their order: the
    paper's question types."""
    return {title: _has(group.key, value) for value, title in group.values.items()}


def present_groups(summary: RunSummary, group: Group, prefix: str = "") -> Groups:
    """The values of `group` a run's questions have, in order, as `<prefix><title>`
    (`sessions 2-3`; `title_of`)."""
    return {
        f"{prefix}{title_of(group, value)}": _has(group.key, value)
        for value in summary.groups[group.key]
    }


def _has(key: str, value: str) -> Callable[[SampleResult], bool]:
    return lambda sample: sample.groups[key] == value


def measures(summary: RunSummary) -> dict[str, Callable[[SampleResult], str]]:
    """The differences over all questions, by the strata their estimate averages over:
    `overall`, and the `macro average` over the values of the version's `mean_group`
    where it has one."""
    found: dict[str, Callable[[SampleResult], str]] = {"overall": lambda sample: ""}
    group = summary.run.entry.mean_group
    if group is not None:
        key = group.key
        found["macro average"] = lambda sample: sample.groups[key]
    return found


def differences(a: RunSummary, b: RunSummary, groups: Groups) -> list[tuple[str, Difference]]:
    """`a` against `b`: overall, macro average (`measures`), then each of `groups` that
    both scored, as (measure, difference)."""
    rows = [
        (name, paired_difference(a.run.samples, b.run.samples, stratum))
        for name, stratum in measures(a).items()
    ]
    for title, member in groups.items():
        mine = [s for s in a.run.samples if member(s)]
        if mine:
            rows.append((title, paired_difference(mine, b.run.samples)))
    return [(name, d) for name, d in rows if d.n]


Row = TypeVar("Row")


def informative(rows: Sequence[tuple[Row, str, Difference]]) -> tuple[tuple[Row, ...], str]:
    """The rows of a table of paired differences worth showing, each given with its
    measure and difference: every `overall` row (alike there, the runs are alike
    throughout), any other unless its runs scored each of its questions alike
    (`Difference.alike`); and one sentence counting those left out (empty where none)."""
    kept = tuple(row for row, measure, d in rows if measure == "overall" or not d.alike)
    left = len(rows) - len(kept)
    if not left:
        return kept, ""
    return kept, (
        f"Left out: {left} row{'s' if left > 1 else ''} whose two runs scored each question "
        "of the measure alike (difference 0, no interval); a pair's overall row is kept."
    )
