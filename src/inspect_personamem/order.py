"""The order in which questions are sent, which decides how much prompt caching helps.

Inspect starts samples in dataset order with bounded concurrency, and a provider
caches a prompt prefix only once a request with it has been processed. Questions
sharing a history share its prefix, so siblings should not be in flight together,
yet should follow each other while the cache still holds their prefix. See
`cache.py` for the simulation that compares the orders and README "Scale and cost"
for the table.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import zip_longest
from typing import Literal

from .records import QuestionRecord

SampleOrder = Literal["interleaved", "grouped", "file", "random"]
ORDERS: tuple[SampleOrder, ...] = ("interleaved", "grouped", "file", "random")
RANDOM_ORDER_SEED = 20250414
"""Fixed seed of the `random` order, so that reruns send questions in the same order."""


def order_records(records: Sequence[QuestionRecord], order: SampleOrder) -> list[QuestionRecord]:
    """Records in the chosen order.

    - `interleaved`: round-robin across contexts (in order of first appearance), each
      context's questions by ascending end index, so each request can reuse the
      prefix of its sibling one round earlier.
    - `grouped`: all questions of a context together, by ascending end index.
    - `file`: as in the question file.
    - `random`: a fixed pseudo-random permutation.
    """
    if order == "file":
        return list(records)
    if order == "random":
        shuffled = list(records)
        random.Random(RANDOM_ORDER_SEED).shuffle(shuffled)
        return shuffled
    by_context: dict[str, list[QuestionRecord]] = {}
    for record in records:
        by_context.setdefault(record.context_id, []).append(record)
    groups = [sorted(group, key=lambda r: r.end_index) for group in by_context.values()]
    if order == "grouped":
        return [record for group in groups for record in group]
    return [record for rank in zip_longest(*groups) for record in rank if record is not None]
