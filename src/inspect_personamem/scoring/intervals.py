"""A mean over strata with its standard error clustered by shared history, its 95%
interval, and the Student's t it is drawn with: one implementation for the metrics a
run logs (every version's `ci_low` / `ci_high`, PersonaMem-v3's micro, macro and
breakdowns) and the report's and card's intervals and paired differences, which may not
import each other (the report imports the versions). `interval` is the one interval
the viewer, the report and the card show.

The error is Inspect's `stderr(cluster=...)` generalised to a mean over strata: each
row's deviation from its stratum's mean over (strata x the stratum's rows), summed per
cluster, root of the sum of squares x G / (G - 1) (G clusters). With one stratum that
is the plain mean and exactly Inspect's clustered error.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, cast

from inspect_ai.scorer import SampleScore, Score, ci, stderr

LEVEL = 0.95
"""The two-sided level of every interval the package draws."""
INTERVAL_NAMES: Final = ("ci_low", "ci_high")
"""The log's names of a run's headline interval, in every version: short, so that the
viewer's header card shows them whole (`run/viewer.py`)."""
_CLUSTER = "cluster"


@cache
def t_quantile(df: int) -> float:
    """Student's t at `LEVEL` (two-sided) with `df` degrees of freedom.

    Read off Inspect's `ci` (the package has no scipy): over df + 1 clusters of one
    question each, one right and the rest wrong, its half-width over its standard error
    is the t it used.
    """
    scores = [
        SampleScore(score=Score(value=float(i == 0)), sample_id=i, sample_metadata={_CLUSTER: i})
        for i in range(df + 1)
    ]
    interval = cast(Callable[[list[SampleScore]], Any], ci(LEVEL, cluster=_CLUSTER))(scores)
    error = cast(Callable[[list[SampleScore]], Any], stderr(cluster=_CLUSTER))(scores)
    return float((interval["upper"] - 1 / (df + 1)) / error)


@dataclass(frozen=True)
class Clustered:
    """One row of a clustered mean: the history it shares (`cluster`), the stratum it
    is averaged within, and its value."""

    cluster: str
    stratum: str
    value: float


@dataclass(frozen=True)
class StratifiedMean:
    """The mean over strata of each stratum's mean, and its clustered standard error."""

    value: float
    stderr: float
    """0 where it cannot be estimated: one cluster, or no spread to go by (every
    stratum a single row, or every value alike)."""
    rows: int
    clusters: int

    def half_width(self) -> float:
        """t(G - 1) x the error: half the 95% interval; NaN where the error is 0."""
        return t_quantile(self.clusters - 1) * self.stderr if self.stderr else math.nan


def stratified_mean(rows: Sequence[Clustered]) -> StratifiedMean:
    """The mean over `rows`' strata of each stratum's mean, with its clustered error
    (NaN mean for no rows)."""
    if not rows:
        return StratifiedMean(math.nan, 0.0, 0, 0)
    strata: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        strata[row.stratum].append(row.value)
    means = {name: math.fsum(values) / len(values) for name, values in strata.items()}
    deviations: dict[str, float] = defaultdict(float)
    for row in rows:
        weight = len(strata) * len(strata[row.stratum])
        deviations[row.cluster] += (row.value - means[row.stratum]) / weight
    g = len(deviations)
    squares = math.fsum(d * d for d in deviations.values())
    error = math.sqrt(squares * g / (g - 1)) if g > 1 else 0.0
    return StratifiedMean(math.fsum(means.values()) / len(means), error, len(rows), g)


@dataclass(frozen=True)
class Interval:
    """A mean with its clustered standard error and 95% interval (`interval`)."""

    value: float
    low: float
    high: float
    stderr: float
    """The clustered standard error (0 where it cannot be estimated, as Inspect's
    `stderr` stores it)."""
    rows: int
    clusters: int


def interval(rows: Sequence[Clustered]) -> Interval:
    """The mean over `rows`' strata (`stratified_mean`) with its 95% interval: where
    every value lies in [0, 1], Wilson's score interval over the Korn-Graubard effective
    size p(1 - p) / stderr² (capped at the rows; the rows themselves where p is 0 or 1
    or the error 0) with t(clusters - 1), which for one stratum is Inspect's
    `ci_wilson(0.95, cluster=...)` exactly and stays inside [0, 1]; where a value lies
    outside [0, 1] (v3's graded NDCG below 0) there is no proportion to bound, and the
    interval is the mean ± t(clusters - 1) x the error (NaN where the error is 0). NaN
    with fewer than two clusters: the clustered error cannot be estimated."""
    mean = stratified_mean(rows)
    low = high = math.nan
    if mean.clusters >= 2:
        t = t_quantile(mean.clusters - 1)
        p, n = mean.value, float(mean.rows)
        if all(0.0 <= row.value <= 1.0 for row in rows):
            if p * (1.0 - p) > 0.0 and mean.stderr > 0.0:
                n = min(p * (1.0 - p) / mean.stderr**2, n)
            middle = (p + t * t / (2.0 * n)) / (1.0 + t * t / n)
            half = t * math.sqrt(p * (1.0 - p) / n + t * t / (4.0 * n * n)) / (1.0 + t * t / n)
            low, high = max(middle - half, 0.0), min(middle + half, 1.0)
        else:
            half = mean.half_width()
            low, high = p - half, p + half
    return Interval(mean.value, low, high, mean.stderr, mean.rows, mean.clusters)
