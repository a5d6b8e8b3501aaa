"""The shared clustered mean and Student's t (`scoring/intervals.py`), on hand-worked
rows."""

from __future__ import annotations

import math

import pytest
from support.reports import T_975

from inspect_personamem.scoring.intervals import Clustered, stratified_mean, t_quantile


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
