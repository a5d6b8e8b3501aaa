"""Rows made of several questions (`scoring/rows.py`): joined when whole, parts left
alone counted, a later part of a side replacing an earlier one."""

from __future__ import annotations

import pytest

from inspect_personamem.scoring.rows import PART_KEY, Part, joined

PRE = Part("r1", "pre", 2, 0.5, 0.5)
POST = Part("r1", "post", 2, 0.0, -0.5)


def test_a_whole_row_is_the_sum_of_its_parts_shares() -> None:
    # pre 0.8, post 0.2: 0.5 + 0.4 - 0.1 = 0.8 (= (1 + 0.8 - 0.2) / 2)
    rows, left = joined([("a", PRE, 0.8), ("b", POST, 0.2)])
    (row,) = rows
    assert row.items == ("a", "b") and row.value == pytest.approx(0.8)
    assert left == []


def test_a_part_without_its_partner_counts_nowhere() -> None:
    rows, left = joined([("a", PRE, 0.8), ("c", Part("r2", "post", 2, 0.0, -0.5), 0.1)])
    assert (rows, left) == ([], ["a", "c"])


def test_a_later_part_of_a_side_replaces_the_earlier() -> None:
    # pre 1.0 replaced by pre 0.0; post 0: 0.5 + 0 - 0 = 0.5
    rows, _ = joined([("a", PRE, 1.0), ("b", POST, 0.0), ("a2", PRE, 0.0)])
    assert [(row.items, row.value) for row in rows] == [(("a2", "b"), 0.5)]


def test_a_part_reads_back_from_score_metadata() -> None:
    assert Part.of({PART_KEY: PRE.metadata()}) == PRE
    assert Part.of({}) is None and Part.of(None) is None
