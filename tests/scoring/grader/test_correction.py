"""The accuracy corrected for the grader's errors: its parts, and on simulated graders
of known error rates, an interval that covers the true accuracy where the judged
accuracy is biased."""

from __future__ import annotations

import math

import numpy as np
import pytest

from inspect_personamem.scoring.grader.correction import (
    Counts,
    corrected_accuracy,
    pooled_rate,
    wilson,
)

TRUE_ACCURACY = 0.35
"""The share of right replies the simulated questions have, in expectation."""
SENSITIVITY = (0.95, 0.75)
"""Per sensitivity kind (a candidate itself, the length-flipped one): how often the
simulated grader names the correct candidate for a right reply."""
FALSE_POSITIVE = (0.02, 0.45, 0.25)
"""Per false-positive kind (a wrong candidate, a generic reply, a mixed one): how often
it names the correct candidate for a reply that is not right; a wrong reply is of each
kind alike."""


def test_a_rate_pools_its_questions_and_counts_clustered_trials_as_fewer() -> None:
    alike = pooled_rate([(1, 2), (1, 2), (1, 2), (1, 2)])
    assert alike is not None and alike.value == 0.5 and alike.effective == 8
    apart = pooled_rate([(2, 2), (0, 2), (2, 2), (0, 2)])
    assert apart is not None and apart.value == 0.5 and apart.effective < 8
    every = pooled_rate([(2, 2), (8, 8)])
    assert every is not None and every.value == 1.0 and every.effective == 10
    assert pooled_rate([]) is None and pooled_rate([(0, 0)]) is None


def test_wilson_interval() -> None:
    rate = pooled_rate([(8, 10)])
    estimate = wilson(rate)
    assert (estimate.value, round(estimate.low, 4), round(estimate.high, 4)) == (
        0.8, 0.4902, 0.9433,
    )  # fmt: skip
    assert math.isnan(wilson(None).value)


def test_a_faithful_grader_leaves_the_accuracy_as_it_is() -> None:
    replies = [(f"c{i % 3}", float(i % 2)) for i in range(30)]
    corrected = corrected_accuracy(replies, [[(2, 2)] * 10], [[(0, 6)] * 10, [(0, 2)] * 10])
    assert corrected.accuracy.value == 0.5
    assert corrected.accuracy.low < 0.5 < corrected.accuracy.high
    assert (corrected.sensitivity, corrected.false_positive) == (1.0, 0.0)


def test_no_accuracy_where_the_grader_cannot_tell_right_from_wrong() -> None:
    replies = [("c", 1.0), ("d", 0.0)]
    blind = corrected_accuracy(replies, [[(1, 4)] * 10], [[(1, 4)] * 10])
    assert math.isnan(blind.accuracy.value)
    assert (blind.accuracy.low, blind.accuracy.high) == (0.0, 1.0)
    unmeasured = corrected_accuracy(replies, [], [[(0, 4)]])
    assert math.isnan(unmeasured.accuracy.value) and math.isnan(unmeasured.sensitivity)


def _kind(rng: np.random.Generator, rate: float, trials: int, share: float) -> list[Counts]:
    """50 calibrated questions' trials of one kind, on the `share` of them it applies
    to, each question's rate scattered around `rate`."""
    counts = []
    for _ in range(50):
        if rng.random() < share:
            own = rng.beta(rate * 20 + 0.01, (1 - rate) * 20 + 0.01)
            counts.append((float(rng.binomial(trials, own)), float(trials)))
    return counts


Run = tuple[list[tuple[int, float]], list[list[Counts]], list[list[Counts]]]
"""The replies (history, judged value), and per kind the trials of sensitivity and
of false positives."""


def _simulated_run(seed: int) -> Run:
    """30 histories of 15 questions, each history's accuracy scattered around
    `TRUE_ACCURACY`; the grader's verdicts on the replies and on its trials."""
    rng = np.random.default_rng(seed)
    replies = []
    for cluster in range(30):
        accuracy = rng.beta(TRUE_ACCURACY * 8, (1 - TRUE_ACCURACY) * 8)
        for _ in range(15):
            right = rng.random() < accuracy
            chance = np.mean(SENSITIVITY) if right else FALSE_POSITIVE[rng.integers(3)]
            replies.append((cluster, float(rng.random() < chance)))
    sensitivity = [_kind(rng, SENSITIVITY[0], 2, 1.0), _kind(rng, SENSITIVITY[1], 2, 0.3)]
    false = [
        _kind(rng, FALSE_POSITIVE[0], 6, 1.0),
        _kind(rng, FALSE_POSITIVE[1], 2, 0.3),
        _kind(rng, FALSE_POSITIVE[2], 2, 1.0),
    ]
    return replies, sensitivity, false


@pytest.mark.slow  # 200 simulated runs
def test_the_interval_covers_the_true_accuracy_the_judged_one_misses() -> None:
    """200 simulated runs: the 95% interval covers the true accuracy in at least 90%
    of them, and the corrected accuracy is nearly unbiased, where the judged accuracy
    is 0.10 too high (0.35 * 0.85 + 0.65 * 0.24 = 0.45)."""
    covered, corrected, judged = 0, [], []
    for seed in range(200):
        replies, sensitivity, false = _simulated_run(seed)
        estimate = corrected_accuracy(replies, sensitivity, false, seed=seed).accuracy
        covered += estimate.low <= TRUE_ACCURACY <= estimate.high
        corrected.append(estimate.value)
        judged.append(sum(value for _, value in replies) / len(replies))
    assert covered / 200 >= 0.9
    assert np.mean(judged) - TRUE_ACCURACY == pytest.approx(0.10, abs=0.01)
    assert abs(np.mean(corrected) - TRUE_ACCURACY) < 0.01


def test_the_interval_does_not_depend_on_the_order_of_the_replies() -> None:
    """Inspect hands a metric its samples in the order they finished and the report
    reads them in another: the same replies give the same interval in any order."""
    replies, sensitivity, false = _simulated_run(0)
    given = corrected_accuracy(replies, sensitivity, false).accuracy
    turned = corrected_accuracy(replies[::-1], sensitivity, false).accuracy
    assert (turned.low, turned.high) == (given.low, given.high)
