"""Paired differences (`report/differences.py`): the clustered error, the macro
average's weights (Student's t: `tests/scoring/test_intervals.py`)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from support.reports import T_975, results, v1_groups

from inspect_personamem.report.differences import informative, paired_difference
from inspect_personamem.report.read.samples import SampleResult


def test_a_paired_difference_is_clustered_by_context() -> None:
    """Contexts A, B, C; d = a - b per question: A [1, 0], B [0, 1], C [-1, 0]. Mean
    1/6; deviations summed per context 2/3, 2/3, -4/3, over n = 6: 1/9, 1/9, -2/9;
    squares 6/81 times G/(G-1) = 3/2: 1/9, so the standard error is 1/3."""
    a = results([1.0, 1.0], [0.0, 1.0], [0.0, 0.0])
    b = results([0.0, 1.0], [0.0, 0.0], [1.0, 0.0])
    d = paired_difference(a, b)
    assert (d.n, d.contexts) == (6, 3)
    assert d.difference == pytest.approx(1 / 6) and d.stderr == pytest.approx(1 / 3)
    # 1/6 ± t(2) x 1/3 = 1/6 ± 1.43, kept inside [-1, 1]
    assert (d.low, d.high) == (-1.0, 1.0)
    assert d.distinguishable == "no"
    # only the questions both scored count
    assert paired_difference(a[:4], b).n == 4


def test_a_clear_paired_difference_is_distinguishable_and_a_constant_one_has_no_interval() -> None:
    """d per context A [1, 1], B [1, 1], C [1, 0], D [1, 1], E [1, 1]: mean 0.9;
    deviations per context 0.2, 0.2, -0.8, 0.2, 0.2 over n = 10; squares 0.008 times 5/4:
    0.01, so the error is 0.1 and the interval 0.9 ± t(4) x 0.1 excludes 0."""
    a = results([1.0, 1.0], [1.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    d = paired_difference(a, [replace(s, value=0.0) for s in a])
    assert d.stderr == pytest.approx(0.1) and d.low == pytest.approx(0.9 - T_975[4] * 0.1)
    assert d.distinguishable == "yes"
    # every question one point better: no spread to estimate an error from, so no
    # interval rather than a point that claims certainty
    same = paired_difference(a, [replace(s, value=s.value - 1) for s in a])
    assert same.difference == 1.0 and math.isnan(same.low) and same.distinguishable == ""


def test_a_macro_difference_weighs_each_category_the_same() -> None:
    """Categories x (3 questions: d = 1, 1, 0) and y (1 question: d = 0) over contexts
    A, B: macro (2/3 + 0) / 2 = 1/3. Weights 1/(2 x 3) in x, 1/2 in y; deviations from
    the category means: A (x: 1/3, 1/3; y: 0) -> 1/9, B (x: -2/3) -> -1/9; squares 2/81
    times G/(G-1) = 2: 4/81, so the standard error is 2/9."""
    a = [
        SampleResult(i, v1_groups(cat), ctx, value, {"single": 1.0}, 1, "single")
        for i, cat, ctx, value in (
            ("1", "x", "A", 1.0), ("2", "x", "A", 1.0), ("3", "x", "B", 0.0), ("4", "y", "A", 0.0)
        )
    ]  # fmt: skip
    b = [replace(s, value=0.0) for s in a]
    d = paired_difference(a, b, lambda s: s.groups["category"])
    assert d.difference == pytest.approx(1 / 3) and d.stderr == pytest.approx(2 / 9)
    assert paired_difference(a, b).difference == pytest.approx(1 / 2)  # question-weighted


def test_rows_with_no_information_are_left_out_and_counted() -> None:
    """Of one pair's rows, those whose runs scored each question alike (0 with no
    interval, which no row needs to say) are left out and counted in one sentence; a
    pair's overall row stays (it says the runs are alike throughout), and so does a 0
    whose questions differ (one right where the other is wrong, and back)."""
    a = results([1.0, 0.0], [1.0, 1.0], [0.0, 1.0])
    alike = paired_difference(a, a)
    better = paired_difference(a, [replace(s, value=0.0) for s in a])
    cancelling = paired_difference(results([1.0, 0.0], [0.0, 1.0]), results([0.0, 1.0], [1.0, 0.0]))
    assert alike.alike and not better.alike and not cancelling.alike
    assert cancelling.difference == 0 and math.isnan(cancelling.stderr)
    rows = [
        (("x overall",), "overall", alike),
        (("x macro",), "macro average", alike),
        (("x type",), "question type: a", alike),
        (("y overall",), "overall", better),
        (("y type a",), "question type: a", alike),
        (("y type b",), "question type: b", cancelling),
    ]
    kept, said = informative(rows)
    assert kept == (("x overall",), ("y overall",), ("y type b",))
    assert said == (
        "Left out: 3 rows whose two runs scored each question of the measure alike "
        "(difference 0, no interval); a pair's overall row is kept."
    )
    assert informative(rows[3:4]) == ((("y overall",),), "")
