"""Accuracy and its interval (`report/accuracy.py`): Inspect's clustered Wilson interval
at small n, at 0 or 1, and under clustering."""

from __future__ import annotations

import math

import pytest
from support.reports import (
    T_975,
    results,
    wilson,
)

from inspect_personamem.report.accuracy import accuracy_of


def test_intervals_at_small_n_and_at_0_or_1_are_not_points() -> None:
    """A normal interval would be [1, 1] or [0, 0] here; Wilson's is n / (n + t²) below
    1 and t² / (n + t²) above 0 (p = 1 or 0: no design effect can be estimated)."""
    t2 = T_975[3] ** 2
    right = accuracy_of(results([1.0], [1.0], [1.0], [1.0]))
    assert right.accuracy == 1.0 and right.high == pytest.approx(1.0)
    assert right.low == pytest.approx(4 / (4 + t2))
    wrong = accuracy_of(results([0.0], [0.0], [0.0], [0.0]))
    assert wrong.low == pytest.approx(0.0) and wrong.high == pytest.approx(t2 / (4 + t2))
    one_context = accuracy_of(results([1.0, 1.0, 0.0]))
    assert math.isnan(one_context.low) and math.isnan(one_context.shown_stderr)


def test_intervals_widen_with_the_clustering() -> None:
    """Contexts [1, 1], [0, 0], [1, 0]: p = 1/2, clustered variance (1² + 1² + 0²) x 3/2
    / 6² = 1/12 against the binomial 1/24, a design effect of 2, so Wilson over 3
    effective questions with t(2)."""
    estimate = accuracy_of(results([1.0, 1.0], [0.0, 0.0], [1.0, 0.0]))
    assert abs(estimate.stderr**2 - 1 / 12) < 1e-12
    low, high = wilson(0.5, 3.0, T_975[2])
    assert abs(estimate.low - low) < 1e-9 and abs(estimate.high - high) < 1e-9
    assert 0 < estimate.low < wilson(0.5, 6.0, T_975[2])[0]  # wider than ignoring it
