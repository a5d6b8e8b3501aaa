"""Which questions measure the grader, in which orders it sees the candidates, and how
each sample says so.

A grader is measured, not trusted: on a fixed, seeded set of the run's questions, it
is also shown replies built from the candidates whose right verdict is known
(`trials.py`), each under two orders of the candidates (the question's seeded order
and its reverse, so every candidate changes place), and the run's own reply again
under the reverse order.

The set is the `count` questions of the whole file whose hash of (seed, question id)
is smallest: the same questions for any run of the file with that seed, whatever the
sample order. A run that asks only some questions (`--limit`, `--sample-id`)
calibrates the chosen ones it asks; the log counts them (`grader_calibrated`).

Each sample of an open run carries its grading (`GRADING` in its metadata: the seed of
its candidates' order, and whether it is calibrated), so that `inspect score` re-grades
a finished run from the log alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.data.options import shuffled_order

GRADING: Final = "grading"
"""The sample metadata saying how its question is graded: `{"seed": int, "calibrated":
bool}`."""


def calibration_questions(question_ids: Iterable[str], count: int, seed: int) -> frozenset[str]:
    """The ids of the `count` questions the grader is measured on."""
    ranked = sorted(
        question_ids, key=lambda qid: hashlib.sha256(f"{seed}|{qid}".encode()).hexdigest()
    )
    return frozenset(ranked[:count])


def grading_metadata(
    questions: Sequence[str], calibration: int, seed: int
) -> dict[str, dict[str, Any]]:
    """Each question's `GRADING` metadata, from the run's `grader_calibration` (the
    questions the grader is measured on) and `grader_seed`."""
    chosen = calibration_questions(questions, calibration, seed)
    return {qid: {GRADING: {"seed": seed, "calibrated": qid in chosen}} for qid in questions}


@dataclass(frozen=True)
class Grading:
    """How one question is graded."""

    seed: int
    calibrated: bool


def grading_of(
    metadata: Mapping[str, Any],
    question_id: str,
    calibration: Sequence[str] | None = None,
    seed: int | None = None,
) -> Grading:
    """A question's grading: as its sample's metadata says, unless a scorer argument
    overrides it; where neither says (a log made before samples did), seed 0 and
    uncalibrated."""
    said = metadata.get(GRADING) or {}
    return Grading(
        int(said.get("seed", 0)) if seed is None else seed,
        bool(said.get("calibrated", False)) if calibration is None else question_id in calibration,
    )


def candidate_orders(
    seed: int, question_id: str, count: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A question's two orders of its `count` candidates: the seeded one the reply is
    graded under, and its reverse. `order[i]` is the index (as the sample shows the
    options) of the candidate numbered i + 1."""
    order = shuffled_order(seed, question_id, count)
    return order, tuple(reversed(order))
