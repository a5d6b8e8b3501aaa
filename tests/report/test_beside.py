"""`report/beside.py`, the part of the report that sets a version's runs beside its
published numbers: the table of runs judged against a label (`judge_table`) and the
accuracy per label group (`groups_table`), on runs written by hand (no log)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from support.reports import a_summary, results

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.beside import groups_table, judge_table
from inspect_personamem.report.read.samples import Calibration


def test_each_group_value_of_each_run_is_a_row_with_its_interval() -> None:
    """Three questions over two contexts, two right: every v1 group has the one value
    `results` gives it, so each of the four groups is a row of 3 questions, 2 contexts
    and accuracy 2/3 with an interval around it; a second run adds its own four rows."""
    version = VERSIONS["v1"]
    a = a_summary("a", results([1.0, 0.0], [1.0]))
    b = a_summary("b", results([0.0], [0.0, 0.0, 1.0]))
    table = groups_table([a, b], version)
    assert table.name == "v1_groups"
    keys = [group.key for group in version.groups]
    assert [row[:3] for row in table.rows] == [
        *(("a", key, value) for key, value in zip(keys, ("c", "t", "1", "1"), strict=True)),
        *(("b", key, value) for key, value in zip(keys, ("c", "t", "1", "1"), strict=True)),
    ]
    for row in table.rows:
        label, _, _, n, contexts, accuracy, low, high = row
        assert (n, contexts) == ((3, 2) if label == "a" else (4, 2))
        assert isinstance(accuracy, float) and isinstance(low, float) and isinstance(high, float)
        assert accuracy == pytest.approx(2 / 3 if label == "a" else 1 / 4)
        assert 0 <= low < accuracy < high <= 1


def test_a_judged_runs_row_counts_what_the_judge_could_not_score_and_its_calibration() -> None:
    """Four replies, one whose score the judge did not give and one empty: shares 1/4
    each. Calibration summed over the questions: 3 calibrated, 2 separated, 2/3. A run
    with no scored question shows no shares rather than 0."""
    scored = results([1.0, 0.5], [0.0, 0.0])
    statuses = [{"judge_unread": 1.0}, {"empty_reply": 1.0}, {"single": 1.0}, {"single": 1.0}]
    calibrations = [Calibration(1, 4, 0, 1), Calibration(1, 4, 0, 1), Calibration(1, 4, 0, 0)]
    samples = [
        replace(s, statuses=status, calibration=calibration)
        for s, status, calibration in zip(
            scored, statuses, [*calibrations, Calibration()], strict=True
        )
    ]
    judged = a_summary("judged", samples)
    empty = a_summary("empty", [])
    table = judge_table([judged, empty], "v2_")
    assert table.name == "v2_judges"
    assert table.columns[0] == "run" and table.columns[-1] == "separates"
    assert table.rows[0][:6] == ("judged", "no", 0.375, 0.25, 0.25, 3)
    assert table.rows[0][6] == pytest.approx(2 / 3)
    label, self_judged, _, unread, empty_share, questions, separates = table.rows[1]
    assert (label, self_judged, questions) == ("empty", "no", 0)
    assert all(isinstance(v, float) and math.isnan(v) for v in (unread, empty_share, separates))
