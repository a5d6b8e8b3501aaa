"""`scoring/grader/calibration.py`: which questions measure the grader (fixed by the
seed, not the order), each sample's grading metadata and how it is read back, and the
two orders of the candidates."""

from __future__ import annotations

import pytest

from inspect_personamem.scoring.grader.calibration import (
    GRADING,
    Grading,
    calibration_questions,
    candidate_orders,
    grading_metadata,
    grading_of,
)

IDS = ["q1", "q2", "q3", "q4", "q5"]


def test_the_calibration_set_is_fixed_by_the_seed_not_the_order() -> None:
    ids = [f"q{i}" for i in range(100)]
    chosen = calibration_questions(ids, 10, seed=3)
    assert len(chosen) == 10 and chosen <= set(ids)
    assert calibration_questions(list(reversed(ids)), 10, seed=3) == chosen
    assert calibration_questions(ids, 10, seed=4) != chosen
    assert calibration_questions(ids, 0, seed=3) == frozenset()
    assert calibration_questions(ids[:5], 10, seed=3) == set(ids[:5])


@pytest.mark.parametrize(
    ("seed", "count", "chosen"),
    [(0, 1, {"q4"}), (0, 2, {"q4", "q2"}), (1, 2, {"q5", "q3"}), (1, 3, {"q5", "q3", "q1"})],
)
def test_the_calibration_set_is_the_smallest_hashes_of_seed_and_id(
    seed: int, count: int, chosen: set[str]
) -> None:
    """Pinned: sha256 of `0|q4` < `0|q2` < `0|q5` < `0|q1` < `0|q3`, and of `1|q5` <
    `1|q3` < `1|q1` < ...; a run with a seed calibrates the same questions as every
    earlier run of the file with that seed."""
    assert calibration_questions(IDS, count, seed) == chosen


def test_each_question_s_grading_metadata_follows_the_run_s_settings() -> None:
    metadata = grading_metadata(IDS, calibration=2, seed=1)
    assert metadata == {
        qid: {GRADING: {"seed": 1, "calibrated": qid in ("q3", "q5")}} for qid in IDS
    }
    none = grading_metadata(IDS, calibration=0, seed=0)
    assert not any(m[GRADING]["calibrated"] for m in none.values())


def test_a_question_s_grading_is_read_from_its_metadata_unless_overridden() -> None:
    metadata = {GRADING: {"seed": 9, "calibrated": True}}
    assert grading_of(metadata, "q1") == Grading(9, True)
    assert grading_of(metadata, "q1", seed=2) == Grading(2, True)
    assert grading_of(metadata, "q1", calibration=["q2"]) == Grading(9, False)
    assert grading_of(metadata, "q2", calibration=["q2"]) == Grading(9, True)
    assert grading_of(metadata, "q1", calibration=[]) == Grading(9, False)


def test_a_sample_without_grading_metadata_is_seed_0_and_uncalibrated() -> None:
    """A log made before samples carried their grading."""
    assert grading_of({}, "q1") == Grading(0, False)
    assert grading_of({GRADING: None}, "q1") == Grading(0, False)
    assert grading_of({"other": 1}, "q1", seed=4, calibration=["q1"]) == Grading(4, True)


def test_the_second_order_moves_every_candidate() -> None:
    for qid in ("a", "b", "c"):
        order, reverse = candidate_orders(0, qid, 4)
        assert sorted(order) == [0, 1, 2, 3]
        assert all(order.index(c) != reverse.index(c) for c in range(4))


def test_the_candidate_orders_are_the_question_s_seeded_shuffle_and_its_reverse() -> None:
    """Pinned: the same seed and question always give the candidates the same places."""
    assert candidate_orders(0, "a", 4) == ((2, 3, 1, 0), (0, 1, 3, 2))
    assert candidate_orders(5, "q1", 3) == ((2, 1, 0), (0, 1, 2))
