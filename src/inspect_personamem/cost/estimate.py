"""Tokens and cost of a run, before running it.

Reads the question file a dataset version's selectors name (located as the task locates
it; no context or history file is needed), counts input tokens from the file's own
token counts (the version's `requests`), simulates prompt caching for the order asked
for (and, for comparison, every other), and prices the run with and without caching
(prices from `prices.py`): each request at its model's long-context tier where its input
is over the tier's threshold, the rest at the standard price. Where the version's run
calls a grader (PersonaMem-v3's judges), the grader's calls are priced apart, each at its
own size, none cached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ModelCost

from inspect_personamem.cost.prices import LongContext, tokens_cost
from inspect_personamem.cost.prompt_cache import (
    CacheResult,
    CacheSettings,
    ideal_cached_tokens,
    simulate,
)
from inspect_personamem.data.order import INTERLEAVE_BLOCK, ORDERS, order_records
from inspect_personamem.data.requests import GraderCalls, Request
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
    """Tokens of the requests' shareable prefixes: the most a prompt cache can serve (the
    history where a context's questions share it; none where they share nothing)."""
    output_tokens: int
    sent: tuple[Request, ...] = ()
    """The requests, in the order sent."""
    output_tokens_per_question: int = 0
    grader: GraderCalls | None = None
    """The grader's calls, where the run makes any."""
    grader_output_tokens: int = 0
    """Expected output tokens of a grader call."""

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
        grader: GraderCalls | None = None,
        grader_output_tokens: int = 0,
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
            output_tokens=output_tokens_per_question * sum(r.calls for r in requests),
            sent=tuple(requests),
            output_tokens_per_question=output_tokens_per_question,
            grader=grader,
            grader_output_tokens=grader_output_tokens,
        )

    def better_order(self) -> SampleOrder | None:
        """An order that would cache clearly more than the one asked for (5 points), if any.

        Interleaving loses its hits when a round across a block of contexts (block /
        concurrency x latency) outlasts the cache lifetime (`grouped` then does better),
        or when fewer contexts than requests in flight make a block.
        """
        best = max(self.shares, key=lambda order: self.shares[order])
        return best if self.shares[best] > self.cache.share + 0.05 else None

    def cost(self, price: ModelCost, caching: bool, tier: LongContext | None = None) -> float:
        """US dollars for the run, with or without prompt caching, each request at `tier`'s
        price where its input is over the tier's threshold. With caching, the cached share
        of each request's prefix is read from the cache and the rest of the prefix written
        to it (at the input price where a provider charges nothing more for writes)."""
        cached = self.cache.cached if caching else (0,) * len(self.sent)
        return requests_cost(
            price,
            tier,
            [r.input_tokens for r in self.sent],
            cached,
            [r.prefix_tokens - c for r, c in zip(self.sent, cached, strict=True)]
            if caching
            else [0] * len(self.sent),
            [self.output_tokens_per_question * r.calls for r in self.sent],
        )

    def long_context_requests(self, tier: LongContext | None) -> int:
        """How many requests `tier` prices (their input over its threshold)."""
        return 0 if tier is None else sum(r.input_tokens > tier.above for r in self.sent)

    def grader_cost(self, price: ModelCost, tier: LongContext | None = None) -> float:
        """US dollars for the grader's calls, each uncached, at `tier` where it is over the
        threshold; 0 where the run makes none."""
        if self.grader is None:
            return 0.0
        prompts = [tokens for calls in self.grader.prompts for tokens in calls]
        none = [0] * len(prompts)
        outputs = [self.grader_output_tokens] * len(prompts)
        return requests_cost(price, tier, prompts, none, none, outputs)


def requests_cost(
    price: ModelCost,
    tier: LongContext | None,
    inputs: Sequence[int],
    cached: Sequence[int],
    written: Sequence[int],
    outputs: Sequence[int],
) -> float:
    """US dollars for requests of `inputs` tokens each (of which `cached` read from and
    `written` to the cache) and `outputs` output tokens each: a request over `tier`'s
    threshold all at the tier's price, the others at `price` (Inspect's formula)."""
    sums = {False: [0, 0, 0, 0], True: [0, 0, 0, 0]}  # over the threshold -> totals
    for tokens, read, wrote, output in zip(inputs, cached, written, outputs, strict=True):
        totals = sums[tier is not None and tokens > tier.above]
        totals[0] += tokens - read - wrote
        totals[1] += read
        totals[2] += wrote
        totals[3] += output
    over = sums[True]
    standard = tokens_cost(price, *sums[False])
    return standard if tier is None else standard + tokens_cost(tier.price, *over)


GRADER_OUTPUT_TOKENS = 600
"""A judge call's expected output tokens: a fenced JSON verdict with its reasoning, and
a reasoning model's hidden tokens, which are billed as output (an assumption: the
authors' judge calls set no output budget that was read)."""


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
    grader_output_tokens: int = GRADER_OUTPUT_TOKENS
    """Expected output tokens of a grader call (its verdict, with its reasoning)."""


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
    return _estimate(
        asked.label, asked.source, asked.data_release, asked.requests, plan, asked.grader
    )


def _estimate(
    label: str,
    source: str,
    data_release: str,
    requests: Sequence[Request],
    plan: Plan,
    grader: GraderCalls | None = None,
) -> CostEstimate:
    """The estimate of `requests` sent in the plan's order, beside every other order's
    share. The order reads a request as it reads a question: its history, and where that
    ends (in tokens, which grow with a history's messages)."""
    by_order = {o: order_records(requests, o, plan.interleave_block)[: plan.limit] for o in ORDERS}
    caching = {o: simulate(sent, plan.settings) for o, sent in by_order.items()}
    if grader is not None and grader.counted:  # the calls of the questions sent, in order
        at = {id(request): index for index, request in enumerate(requests)}
        calls = [grader.prompts[at[id(request)]] for request in by_order[plan.order]]
        grader = GraderCalls(calls, grader.words)

    return CostEstimate.of(
        label,
        source,
        data_release,
        plan.order,
        by_order[plan.order],
        caching[plan.order],
        {o: result.share for o, result in caching.items()},
        plan.output_tokens_per_question,
        grader,
        plan.grader_output_tokens,
    )
