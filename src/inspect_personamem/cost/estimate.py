"""Tokens and cost of a run, before running it.

Reads the question file a dataset version's selectors name (located as the task locates
it; no context or history file is needed), counts input tokens from the file's own
token counts (the version's `requests`), simulates prompt caching for the order asked
for (and, for comparison, every other), and prices the run with and without caching
(prices from `prices.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ModelCost

from inspect_personamem.cost.prices import tokens_cost
from inspect_personamem.cost.prompt_cache import (
    CacheResult,
    CacheSettings,
    ideal_cached_tokens,
    simulate,
)
from inspect_personamem.data.order import INTERLEAVE_BLOCK, ORDERS, order_records
from inspect_personamem.data.requests import Request
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.declared import Where
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.types import SampleOrder


@dataclass(frozen=True)
class CostEstimate:
    label: str
    """Which questions, as the version words them (`QuestionRequests.label`)."""
    questions: int
    source: str
    data_release: str
    """How the question file compares with the released one, as a task records it."""
    order: SampleOrder
    """The order simulated: the one the run sends questions in."""
    cache: CacheResult
    """The simulated caching of `order`."""
    shares: dict[SampleOrder, float]
    """Cacheable share of input tokens under each order the task can be asked for, with
    the same settings."""
    ideal_cached_tokens: int
    prefix_tokens: int
    output_tokens: int

    @classmethod
    def of(
        cls,
        label: str,
        source: str,
        data_release: str,
        order: SampleOrder,
        requests: Sequence[Request],
        cache: CacheResult,
        shares: dict[SampleOrder, float],
        output_tokens_per_question: int,
    ) -> CostEstimate:
        """The estimate of `requests`, sent in `order`, which cache as `cache` says."""
        return cls(
            label=label,
            questions=len(requests),
            source=source,
            data_release=data_release,
            order=order,
            cache=cache,
            shares=shares,
            ideal_cached_tokens=ideal_cached_tokens(requests),
            prefix_tokens=sum(r.prefix_tokens for r in requests),
            output_tokens=output_tokens_per_question * len(requests),
        )

    def better_order(self) -> SampleOrder | None:
        """An order that would cache clearly more than the one asked for (5 points), if any.

        Interleaving loses its hits when a round across a block of contexts (block /
        concurrency x latency) outlasts the cache lifetime (`grouped` then does better),
        or when fewer contexts than requests in flight make a block.
        """
        best = max(self.shares, key=lambda order: self.shares[order])
        return best if self.shares[best] > self.cache.share + 0.05 else None

    def cost(self, price: ModelCost, caching: bool) -> float:
        """US dollars for the run, with or without prompt caching. With it, the cached
        share of the history is read from the cache and the rest of the history written
        to it (at the input price where a provider charges nothing more for writes)."""
        if not caching:
            return tokens_cost(price, self.cache.input_tokens, 0, 0, self.output_tokens)
        cached = self.cache.cached_tokens
        written = self.prefix_tokens - cached
        uncached = self.cache.input_tokens - cached - written
        return tokens_cost(price, uncached, cached, written, self.output_tokens)


@dataclass(frozen=True)
class Plan:
    """How a run would send its questions and what it would get back: the order
    (`-T order`, `-T interleave_block`), how requests are served, the expected output,
    and `inspect eval --limit` (the first `limit` questions in each order)."""

    order: SampleOrder = "interleaved"
    interleave_block: int = INTERLEAVE_BLOCK
    settings: CacheSettings = CacheSettings()
    output_tokens_per_question: int = 300
    limit: int | None = None


def estimate(
    version: DatasetVersion[Any], selected: Mapping[str, Any], where: Where, plan: Plan = Plan()
) -> CostEstimate:
    """Count the tokens of a run of `version` on the questions `selected` names (a value
    of each of its selectors, and of its own options by `dest`; answering by choice)
    and simulate its prompt caching; a one-line error for a version that declares
    nothing for the estimate."""
    if version.estimate is None:
        raise PersonaMemArgumentError(f"{version.name} declares no requests to estimate")
    asked = version.estimate.requests(selected, where)
    return _estimate(asked.label, asked.source, asked.data_release, asked.requests, plan)


def _estimate(
    label: str, source: str, data_release: str, requests: Sequence[Request], plan: Plan
) -> CostEstimate:
    """The estimate of `requests` sent in the plan's order, beside every other order's
    share. The order reads a request as it reads a question: its history, and where that
    ends (in tokens, which grow with a history's messages)."""
    by_order = {o: order_records(requests, o, plan.interleave_block)[: plan.limit] for o in ORDERS}
    caching = {o: simulate(sent, plan.settings) for o, sent in by_order.items()}
    return CostEstimate.of(
        label,
        source,
        data_release,
        plan.order,
        by_order[plan.order],
        caching[plan.order],
        {o: result.share for o, result in caching.items()},
        plan.output_tokens_per_question,
    )
