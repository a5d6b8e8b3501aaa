"""Every grading of the same replies side by side: how far two graders agree.

A finished open run graded again by another grader (`inspect score`, or Inspect's
`score()`: docs/open-answers.md) is a log of its own. Two logs hold the same replies
where they share Inspect's eval id (`Run.eval_id`): a re-grade keeps the eval's id, its
start time, its samples and their replies, and changes only the scores, while every
new run (`inspect eval`, `inspect eval-retry`) gets an id of its own. Each grading's
grader is the one its scores name (`grader_model`), not the one the log's header still
names. Each grading stays a run of its own in every other table, labelled by its
grader (`labels.py`); nothing is pooled.

Two gradings are compared over the question epochs both scored: their accuracies, the
share of question epochs on which both gave the same verdict (the candidate named,
`none` or `unreadable`: the score's answer), and Cohen's kappa over those verdicts,
(agreement - chance) / (1 - chance), chance being the agreement of two graders giving
each verdict as often as these, independently; undefined (NaN) where chance is 1 (both
gave one verdict throughout). Both come with a 95% interval from a cluster bootstrap
(`DRAWS` draws, seeded: the same logs give the same interval): the histories the
questions share (the version's `cluster`) drawn with replacement, both statistics
computed on each draw, and the 2.5th and 97.5th percentiles taken (a draw where kappa
is undefined is left out of its interval). With fewer than two histories there is no
interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.scoring.grader.correction import NOTHING, Estimate
from inspect_personamem.scoring.intervals import LEVEL

DRAWS = 4000
"""Bootstrap draws of an interval."""
_CHUNK = 256
"""Bootstrap draws made at once (a run of thousands of histories stays small)."""

Verdicts = tuple[str, str, str]
"""One question epoch graded twice: (the history it shares, one verdict, the other)."""


@dataclass(frozen=True)
class Agreement:
    """How two gradings of the same replies agree."""

    n: int
    """Question epochs both graded."""
    contexts: int
    agreement: Estimate
    """The share of them on which both gave the same verdict."""
    kappa: Estimate
    """Cohen's kappa over the verdicts."""


def agreement_of(pairs: Sequence[Verdicts], draws: int = DRAWS, seed: int = 0) -> Agreement:
    """The agreement and kappa of `pairs`, each with its cluster bootstrap interval (see
    the module docstring)."""
    if not pairs:
        return Agreement(0, 0, NOTHING, NOTHING)
    verdicts = {v: i for i, v in enumerate(sorted({v for _, a, b in pairs for v in (a, b)}))}
    clusters = {c: i for i, c in enumerate(sorted({c for c, _, _ in pairs}))}
    tables = np.zeros((len(clusters), len(verdicts), len(verdicts)))
    for cluster, a, b in pairs:
        tables[clusters[cluster], verdicts[a], verdicts[b]] += 1
    agreement, kappa = _statistics(tables.sum(axis=0)[None])
    if len(clusters) < 2:
        return Agreement(len(pairs), len(clusters), _point(agreement), _point(kappa))
    rng = np.random.default_rng(seed)
    shares = np.full(len(clusters), 1 / len(clusters))
    drawn = [
        _statistics(np.tensordot(rng.multinomial(len(clusters), shares, size=size), tables, axes=1))
        for size in (min(_CHUNK, draws - start) for start in range(0, draws, _CHUNK))
    ]
    agreements, kappas = (np.concatenate(parts) for parts in zip(*drawn, strict=True))
    return Agreement(
        len(pairs),
        len(clusters),
        _interval(agreement, agreements),
        _interval(kappa, kappas),
    )


def _statistics(tables: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per table of verdict counts (one grading's verdicts by rows, the other's by
    columns): the share on the diagonal, and Cohen's kappa (NaN where chance is 1)."""
    n = tables.sum(axis=(1, 2))
    observed = np.trace(tables, axis1=1, axis2=2) / n
    chance = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1) / n**2
    below = chance < 1
    kappa = np.where(below, (observed - chance) / np.where(below, 1 - chance, 1.0), np.nan)
    return observed, kappa


def _point(values: NDArray[np.float64]) -> Estimate:
    """A value without an interval."""
    return Estimate(float(values[0]), math.nan, math.nan)


def _interval(value: NDArray[np.float64], draws: NDArray[np.float64]) -> Estimate:
    """A value with the percentile interval of its defined draws."""
    defined = draws[~np.isnan(draws)]
    if not len(defined):
        return _point(value)
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return Estimate(float(value[0]), float(low), float(high))


def regradings(graded: Sequence[RunSummary]) -> list[list[RunSummary]]:
    """The gradings of the same replies (`Run.eval_id`), in the order first met, where
    there are two or more of them."""
    by_eval: dict[str, list[RunSummary]] = {}
    for s in graded:
        by_eval.setdefault(s.run.eval_id, []).append(s)
    return [same for same in by_eval.values() if len(same) > 1]


def verdict_pairs(a: RunSummary, b: RunSummary) -> list[Verdicts]:
    """The question epochs both gradings scored, with each one's verdict."""
    other = {s.id: s.answers for s in b.run.samples}
    return [
        (s.context_id, verdict, other[s.id][epoch])
        for s in a.run.samples
        if s.id in other
        for epoch, verdict in s.answers.items()
        if epoch in other[s.id]
    ]


def regrading_notes(graded: Sequence[RunSummary]) -> list[str]:
    """A note for each set of gradings of the same replies: they are runs of their own
    in every table, and where they stand side by side."""
    return [
        f"{'; '.join(s.label for s in same)}: {len(same)} gradings of the same replies "
        "(one eval, graded again: Inspect's `eval_id`), each a run of its own in every "
        "table, labelled by its grader; `grader_agreement` sets them side by side"
        for same in regradings(graded)
    ]
