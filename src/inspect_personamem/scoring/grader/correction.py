"""A judged accuracy corrected for its grader's measured errors, with an interval that
carries the trials' uncertainty as well as the questions'. Pure functions: no Inspect.

A grader names the correct candidate for a reply that is right with probability
`sensitivity` (its true-positive rate), and for a reply that is not right with
probability `false_positive`. The judged (observed) accuracy is then
`observed = true * sensitivity + (1 - true) * false_positive`, so (Rogan and Gladen,
1978)

    true = (observed - false_positive) / (sensitivity - false_positive),

clipped to [0, 1]; undefined where the grader is no better at naming the correct
candidate for right replies than for wrong ones (`sensitivity <= false_positive`).

Each rate is estimated from trials (`trials.py`) grouped in kinds: the mean of its
kinds' rates, each kind pooled over its questions (a kind with no trials is left out).
Trials of one question are not independent, so each kind's rate counts its trials as
an effective number (`Rate.effective`: the trials over Kish's design effect, from the
spread of the questions' own rates). The questions' trials are read as their scores
hold them (`TrialCounts`), by the metrics and the report alike.

The interval is a bootstrap: the observed accuracy resampled by cluster (the
histories questions share), each kind's rate drawn from its Beta distribution
(Jeffreys: `Beta(hits + 1/2, misses + 1/2)` at its effective number of trials), the
correction applied to each draw, and the percentiles taken. A draw in which the
grader does not tell right from wrong (`sensitivity <= false_positive`) could give
any accuracy: it counts as 0 for the lower bound and 1 for the upper.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from inspect_personamem.scoring.grader.trials import FALSE_POSITIVE_KINDS, SENSITIVITY_KINDS

_CHUNK = 256
"""Bootstrap draws made at once."""

Counts = tuple[float, float]
"""One question's trials of a kind: (hits, trials)."""
TrialCounts = Mapping[str, Mapping[str, float]]
"""One question's trials per kind, as its score's metadata holds them
(`trials.TRIAL_COUNTS`: `{kind: {"trials", "right", "named_correct"}}`); empty for a
question not calibrated."""


@dataclass(frozen=True)
class Estimate:
    """A value and its interval; NaN where nothing was measured."""

    value: float
    low: float
    high: float


NOTHING = Estimate(math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class Rate:
    """A share of trials, pooled over the questions they share."""

    value: float
    effective: float
    """The trials as independent ones: their number over the design effect (at least 1)."""


def pooled_rate(questions: Sequence[Counts]) -> Rate | None:
    """The share of hits over all `questions`' trials, with Kish's design effect from
    the ratio estimator's variance clustered by question; None without trials."""
    hits = sum(h for h, _ in questions)
    trials = sum(n for _, n in questions)
    if not trials:
        return None
    value = hits / trials
    binomial = value * (1 - value) / trials
    clusters = len(questions)
    if clusters < 2 or binomial == 0:
        return Rate(value, trials)
    spread = sum((h - value * n) ** 2 for h, n in questions) * clusters / (clusters - 1)
    design_effect = max(1.0, spread / trials**2 / binomial)
    return Rate(value, trials / design_effect)


def wilson(rate: Rate | None, level: float = 0.95) -> Estimate:
    """The rate with its Wilson score interval at its effective number of trials."""
    if rate is None:
        return NOTHING
    z = NormalDist().inv_cdf((1 + level) / 2)
    n, p = rate.effective, rate.value
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half))


def kind_counts(questions: Sequence[TrialCounts], kind: str, hits: str) -> list[Counts]:
    """Per question with trials of `kind`: (its `hits` count, its trials)."""
    found = []
    for question in questions:
        count = question.get(kind) or {}
        if count.get("trials"):
            found.append((float(count[hits]), float(count["trials"])))
    return found


def right_share(questions: Sequence[TrialCounts], kinds: Sequence[str]) -> Estimate:
    """The share of right verdicts in the trials of `kinds`, pooled over `questions`,
    with its Wilson interval; NaN without such trials."""
    return wilson(pooled_rate([c for kind in kinds for c in kind_counts(questions, kind, "right")]))


@dataclass(frozen=True)
class Corrected:
    """A corrected accuracy and the grader's rates it used."""

    accuracy: Estimate
    sensitivity: float
    false_positive: float


def corrected_accuracy(
    replies: Sequence[tuple[Hashable, float]],
    sensitivity: Sequence[Sequence[Counts]],
    false_positive: Sequence[Sequence[Counts]],
    level: float = 0.95,
    draws: int = 4000,
    seed: int = 0,
) -> Corrected:
    """The accuracy of `replies` ((cluster, judged value in [0, 1]) each) corrected for
    a grader whose sensitivity and false-positive rate are measured by the trials of
    each kind given (per kind, per question: hits, trials); see the module docstring.
    """
    rates = [
        [r for r in map(pooled_rate, kinds) if r is not None]
        for kinds in (sensitivity, false_positive)
    ]
    if not replies or not all(rates):
        return Corrected(NOTHING, math.nan, math.nan)
    true_positive, false = (float(np.mean([r.value for r in kind])) for kind in rates)
    observed = sum(value for _, value in replies) / len(replies)
    rng = np.random.default_rng(seed)
    observed_draws = _cluster_draws(replies, draws, rng)
    tp_draws, fp_draws = (
        np.mean([_beta_draws(r, draws, rng) for r in kind], axis=0) for kind in rates
    )
    corrected = _correct(observed_draws, tp_draws, fp_draws)
    tail = (1 - level) / 2
    low = float(np.quantile(np.where(np.isnan(corrected), 0.0, corrected), tail))
    high = float(np.quantile(np.where(np.isnan(corrected), 1.0, corrected), 1 - tail))
    value = float(_correct(np.array([observed]), np.array([true_positive]), np.array([false]))[0])
    return Corrected(Estimate(value, low, high), true_positive, false)


def corrected_by_trials(
    replies: Sequence[tuple[Hashable, float]], questions: Sequence[TrialCounts]
) -> Corrected:
    """The accuracy of `replies` corrected for the grader measured by the trials of
    `questions`: its sensitivity from the kinds whose reply is right
    (`trials.SENSITIVITY_KINDS`), its false positives from those whose reply is not
    (`trials.FALSE_POSITIVE_KINDS`), each counted by the verdicts naming the correct
    candidate."""
    return corrected_accuracy(
        replies,
        [kind_counts(questions, kind, "named_correct") for kind in SENSITIVITY_KINDS],
        [kind_counts(questions, kind, "named_correct") for kind in FALSE_POSITIVE_KINDS],
    )


def _correct(
    observed: NDArray[np.float64], sensitivity: NDArray[np.float64], false: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Rogan and Gladen's correction, clipped to [0, 1]; NaN where the grader does not
    tell right from wrong."""
    gap = sensitivity - false
    safe = np.where(gap > 0, gap, 1.0)
    return np.where(gap > 0, np.clip((observed - false) / safe, 0.0, 1.0), np.nan)


def _cluster_draws(
    replies: Sequence[tuple[Hashable, float]], draws: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The mean of `replies`, resampled `draws` times by cluster (in chunks of
    `_CHUNK` draws: a run of thousands of unclustered questions stays small). The
    clusters are drawn in the order of their names, so that the draws do not depend on
    the order the replies come in (Inspect hands a metric the samples in the order they
    finished; the report reads them in another)."""
    sums: dict[str, list[float]] = {}
    for cluster, value in replies:
        total = sums.setdefault(str(cluster), [0.0, 0.0])
        total[0] += value
        total[1] += 1
    values = np.array([sums[name] for name in sorted(sums)])
    result = np.empty(draws)
    for start in range(0, draws, _CHUNK):
        chosen = rng.integers(0, len(values), size=(min(_CHUNK, draws - start), len(values)))
        picked = values[chosen]
        means = picked[..., 0].sum(axis=1) / picked[..., 1].sum(axis=1)
        result[start : start + len(means)] = means
    return result


def _beta_draws(rate: Rate, draws: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """Draws of a rate from its Jeffreys Beta distribution at its effective trials."""
    hits = rate.value * rate.effective
    result: NDArray[np.float64] = rng.beta(hits + 0.5, rate.effective - hits + 0.5, size=draws)
    return result
