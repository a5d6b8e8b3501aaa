"""Which questions measure the grader, and in which orders it sees the candidates.

A grader is measured, not trusted: on a fixed, seeded set of the run's questions, it
is shown each candidate itself as the reply, under two orders of the candidates (the
question's seeded order and its reverse, so every candidate changes place). How often
it names the candidate it was shown is its identity accuracy; how often its choice
for a candidate changes with the order is its position bias.

The set is the `count` questions of the whole file whose hash of (seed, question id)
is smallest: the same questions for any run of the file with that seed, whatever the
sample order. A run that asks only some questions (`--limit`, `--sample-id`)
calibrates the chosen ones it asks; the log counts them (`grader_calibrated`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from inspect_personamem.data.options import shuffled_order


def calibration_questions(question_ids: Iterable[str], count: int, seed: int) -> frozenset[str]:
    """The ids of the `count` questions the grader is measured on."""
    ranked = sorted(
        question_ids, key=lambda qid: hashlib.sha256(f"{seed}|{qid}".encode()).hexdigest()
    )
    return frozenset(ranked[:count])


def candidate_orders(
    seed: int, question_id: str, count: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A question's two orders of its `count` candidates: the seeded one the reply is
    graded under, and its reverse. `order[i]` is the index (as the sample shows the
    options) of the candidate numbered i + 1."""
    order = shuffled_order(seed, question_id, count)
    return order, tuple(reversed(order))
