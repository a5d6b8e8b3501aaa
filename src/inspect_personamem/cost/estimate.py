"""Tokens and cost of a run, before running it.

Reads the split's question file (located as the task locates it; the large context
file is not needed), counts input tokens from the file's own token counts, simulates
prompt caching for the task's default order, and prices the run with and without
caching (prices from `prices.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..data.files import locate_question_file
from ..data.order import INTERLEAVE_BLOCK, ORDERS, order_records
from ..data.spec import DataSource
from ..data.splits import Split
from ..types import SampleOrder
from .prices import PER_MILLION, Price
from .prompt_cache import CacheResult, CacheSettings, ideal_cached_tokens, requests_for, simulate


@dataclass(frozen=True)
class CostEstimate:
    split: Split
    questions: int
    source: str
    cache: CacheResult
    """The simulated caching of the order asked for."""
    shares: dict[SampleOrder, float]
    """Cacheable share of input tokens under each order, with the same settings."""
    ideal_cached_tokens: int
    prefix_tokens: int
    output_tokens: int

    def better_order(self) -> SampleOrder | None:
        """An order that would cache clearly more than the one asked for (5 points), if any.

        Interleaving loses its hits when a round across a block of contexts (block /
        concurrency x latency) outlasts the cache lifetime (`grouped` then does better),
        or when fewer contexts than requests in flight make a block.
        """
        best = max(self.shares, key=lambda order: self.shares[order])
        return best if self.shares[best] > self.cache.share + 0.05 else None

    def cost(self, price: Price, caching: bool) -> float:
        """US dollars for the run, with or without prompt caching."""
        output = self.output_tokens * price.output
        if not caching:
            return (self.cache.input_tokens * price.input + output) / PER_MILLION
        cached = self.cache.cached_tokens
        written = self.prefix_tokens - cached if price.cache_write is not None else 0
        uncached = self.cache.input_tokens - cached - written
        write_cost = written * (price.cache_write or 0.0)
        return (
            uncached * price.input + cached * price.cached_input + write_cost + output
        ) / PER_MILLION


def estimate_cost(
    source: DataSource,
    *,
    order: SampleOrder = "interleaved",
    interleave_block: int = INTERLEAVE_BLOCK,
    settings: CacheSettings | None = None,
    output_tokens_per_question: int = 300,
    limit: int | None = None,
) -> CostEstimate:
    """Count a run's tokens and simulate its prompt caching; with `limit`, of the first
    `limit` questions in each order, as `inspect eval --limit` asks them."""
    questions, where = locate_question_file(source)
    records = source.spec.read_questions(questions, source.split)
    settings = settings or CacheSettings()
    by_order = {
        o: requests_for(order_records(records, o, interleave_block)[:limit]) for o in ORDERS
    }
    caching = {o: simulate(requests, settings) for o, requests in by_order.items()}
    requests = by_order[order]
    return CostEstimate(
        split=source.split,
        questions=len(by_order[order]),
        source=where,
        cache=caching[order],
        shares={o: result.share for o, result in caching.items()},
        ideal_cached_tokens=ideal_cached_tokens(requests),
        prefix_tokens=sum(r.prefix_tokens for r in requests),
        output_tokens=output_tokens_per_question * len(by_order[order]),
    )
