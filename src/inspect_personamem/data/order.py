"""The order in which questions are sent, which decides how much prompt caching helps.

Inspect starts samples in dataset order with bounded concurrency, and a provider
caches a prompt prefix only once a request with it has been processed. Questions
sharing a history share its prefix, so siblings should not be in flight together,
yet should follow each other while the cache still holds their prefix.
`cost/prompt_cache.py` simulates the orders (`benchmarks/cache_orders.py` prints the
comparison); `prefix_ends` chooses the history ends each question marks as cache
breakpoints.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import zip_longest
from typing import Protocol, TypeVar

from inspect_personamem.types import SampleOrder

ORDERS: tuple[SampleOrder, ...] = ("interleaved", "grouped", "file", "random")
RANDOM_ORDER_SEED = 20250414
"""Fixed seed of the `random` order, so that reruns send questions in the same order."""

INTERLEAVE_BLOCK = 10
"""Contexts interleaved at a time, at least (about the requests in flight: Inspect's
default is 10 connections). A request reuses its sibling's prefix one round earlier,
so a round must be longer than the requests in flight (or siblings run together and
miss) and shorter than the cache lifetime (or the entry has expired): a round across
all of a split's 31-60 contexts is too long at a few connections with slow requests."""


class Queued(Protocol):
    """A question as its order sees it: the history it is asked after, and how much of
    it (a dataset version's question)."""

    @property
    def context_id(self) -> str: ...

    @property
    def end_index(self) -> int: ...


Q = TypeVar("Q", bound=Queued)


class Asked(Queued, Protocol):
    """A question with its id (a sample's id)."""

    @property
    def question_id(self) -> str: ...


def order_records(
    records: Sequence[Q], order: SampleOrder, block: int = INTERLEAVE_BLOCK
) -> list[Q]:
    """Records in the chosen order.

    - `interleaved`: the contexts (in order of first appearance) dealt into blocks of
      at least `block` contexts (0: one block of all), one block after the other;
      within a block, round-robin across its contexts, each context's questions by
      ascending end index, so each request can reuse the prefix of its sibling one
      round earlier.
    - `grouped`: all questions of a context together, by ascending end index.
    - `file`: as in the question file.
    - `random`: a fixed pseudo-random permutation.
    """
    if block < 0:
        raise ValueError(f"interleave_block must be 0 (all contexts) or more, not {block}")
    if order == "file":
        return list(records)
    if order == "random":
        shuffled = list(records)
        random.Random(RANDOM_ORDER_SEED).shuffle(shuffled)
        return shuffled
    by_context: dict[str, list[Q]] = {}
    for record in records:
        by_context.setdefault(record.context_id, []).append(record)
    groups = [sorted(group, key=lambda r: r.end_index) for group in by_context.values()]
    if order == "grouped":
        return [record for group in groups for record in group]
    blocks = max(1, len(groups) // block) if block else 1
    return [
        record
        for first in range(blocks)
        for rank in zip_longest(*groups[first::blocks])
        for record in rank
        if record is not None
    ]


MAX_BREAKPOINTS = 4
"""Anthropic accepts at most four cache breakpoints per request."""


def prefix_ends(records: Sequence[Asked]) -> dict[str, list[int]]:
    """Question id -> the history ends worth marking as cache breakpoints.

    Its own end (so later siblings can reuse it) and the largest earlier ends of
    other questions of its context (which earlier siblings wrote to the cache),
    four at most, longest first.
    """
    ends: dict[str, set[int]] = {}
    for record in records:
        ends.setdefault(record.context_id, set()).add(record.end_index)
    chosen: dict[str, list[int]] = {}
    for record in records:
        shorter = sorted(
            (e for e in ends[record.context_id] if 0 < e < record.end_index), reverse=True
        )
        own = [record.end_index] if record.end_index > 0 else []
        chosen[record.question_id] = (own + shorter)[:MAX_BREAKPOINTS]
    return chosen
