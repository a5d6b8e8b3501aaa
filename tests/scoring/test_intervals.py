"""The shared clustered mean and Student's t (`scoring/intervals.py`), on hand-worked
rows."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, cast

import pytest
from inspect_ai.scorer import SampleScore, Score, ci_wilson
from support.reports import T_975

from inspect_personamem.scoring.intervals import (
    Clustered,
    interval,
    stratified_mean,
    t_quantile,
)


def test_t_quantile_read_off_inspect() -> None:
    for df, t in T_975.items():
        assert t_quantile(df) == pytest.approx(t, rel=1e-9)


def test_one_stratum_is_the_plain_mean_and_inspect_s_clustered_error() -> None:
    # A [1, 0], B [1]: mean 2/3; deviations per cluster A 1/3 - 2/3 = -1/3, B 1/3,
    # over n = 3: -1/9, 1/9; sqrt(2/81 x 2/1) = 2/9
    rows = [Clustered("A", "", 1.0), Clustered("A", "", 0.0), Clustered("B", "", 1.0)]
    mean = stratified_mean(rows)
    assert mean.value == pytest.approx(2 / 3) and (mean.rows, mean.clusters) == (3, 2)
    assert mean.stderr == pytest.approx(2 / 9)
    assert mean.half_width() == pytest.approx(2 / 9 * T_975[1])


def test_strata_weigh_alike() -> None:
    # stratum x: A 1, B 0 (mean 1/2); stratum y: A 1 (mean 1): the mean of means 3/4;
    # deviations over (2 strata x the stratum's rows): A 1/2 / 4 + 0 = 1/8, B -1/8;
    # sqrt(2/64 x 2/1) = 1/4
    rows = [Clustered("A", "x", 1.0), Clustered("B", "x", 0.0), Clustered("A", "y", 1.0)]
    mean = stratified_mean(rows)
    assert mean.value == pytest.approx(0.75)
    assert mean.stderr == pytest.approx(0.25)


def test_no_spread_or_one_cluster_gives_no_error() -> None:
    one = stratified_mean([Clustered("A", "", 1.0), Clustered("A", "", 0.0)])
    assert (one.value, one.stderr, one.clusters) == (0.5, 0.0, 1)
    assert math.isnan(one.half_width())
    empty = stratified_mean([])
    assert math.isnan(empty.value) and empty.rows == 0


def _inspect_wilson(rows: list[Clustered]) -> dict[str, float]:
    scores = [
        SampleScore(score=Score(value=r.value), sample_id=i, sample_metadata={"c": r.cluster})
        for i, r in enumerate(rows)
    ]
    wilson = cast(Callable[[list[SampleScore]], Any], ci_wilson(0.95, cluster="c"))
    return cast(dict[str, float], wilson(scores))


@pytest.mark.parametrize("seed", range(6))
def test_the_interval_of_one_stratum_is_inspect_s_clustered_wilson(seed: int) -> None:
    draw = random.Random(seed)
    rows = [
        Clustered(f"p{draw.randrange(2 + seed)}", "", draw.choice([0.0, 0.5, 1.0, 0.25]))
        for _ in range(5 + 7 * seed)
    ]
    if len({r.cluster for r in rows}) < 2:
        rows.append(Clustered("other", "", 1.0))
    ours, theirs = interval(rows), _inspect_wilson(rows)
    assert (ours.low, ours.high) == pytest.approx((theirs["lower"], theirs["upper"]), abs=1e-12)
    assert 0.0 <= ours.low <= ours.value <= ours.high <= 1.0


def test_all_right_over_few_clusters_is_not_a_point() -> None:
    # four rows all right in four clusters: Inspect's [0.28, 1], not [1, 1]
    rows = [Clustered(str(i), "", 1.0) for i in range(4)]
    ours = interval(rows)
    assert ours.high == pytest.approx(1.0) and ours.low == pytest.approx(
        _inspect_wilson(rows)["lower"]
    )
    assert 0.2 < ours.low < 0.4


def test_a_value_below_zero_gives_the_t_interval_and_one_cluster_none() -> None:
    rows = [Clustered("A", "", -0.5), Clustered("A", "", 1.0), Clustered("B", "", 1.0)]
    ours, mean = interval(rows), stratified_mean(rows)
    assert ours.low == pytest.approx(mean.value - T_975[1] * mean.stderr)
    assert ours.high == pytest.approx(mean.value + T_975[1] * mean.stderr)
    one = interval([Clustered("A", "", 1.0), Clustered("A", "", 0.0)])
    assert math.isnan(one.low) and math.isnan(one.high) and one.value == 0.5
