"""Tokens and cost of a run, before running it.

Reads the split's question file (located as the task locates it; the large context
file is not needed), counts input tokens from the file's own token counts, simulates
prompt caching for the task's default order, and prices the run with and without
caching from a price table shipped with its date and sources (overridable).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from pathlib import Path
from typing import Any

import yaml

from .cache import CacheResult, CacheSettings, ideal_cached_tokens, requests_for, simulate
from .files import locate_question_file
from .order import INTERLEAVE_BLOCK, ORDERS, SampleOrder, order_records
from .records import read_questions
from .splits import DEFAULT_REPO_ID, DEFAULT_REVISION, Split

PER_MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float
    cache_write: float | None = None
    """Anthropic-style surcharge on tokens written to the cache; None if free."""


_DATED = re.compile(r"-(\d|latest$)")
"""What may follow a table entry in a model name: a date or version (`-2025-04-14`,
`-20250219`) or `-latest`, but not another model's name (`openai/o3-pro`)."""


@dataclass(frozen=True)
class PriceTable:
    prices: dict[str, Price]
    as_of: str
    source: str
    sources: dict[str, str] = field(default_factory=dict)
    """Provider -> the pricing page the table's prices were taken from."""

    def price(self, model: str) -> Price:
        """The price of `model`: an exact entry, else the entry it extends with a date
        or `-latest` (so `openai/gpt-4.1-2025-04-14` takes `openai/gpt-4.1`)."""
        if model in self.prices:
            return self.prices[model]
        matches = [
            name
            for name in self.prices
            if model.startswith(name) and _DATED.match(model, len(name)) is not None
        ]
        if not matches:
            known = ", ".join(sorted(self.prices))
            raise ValueError(
                f"No price for {model!r} in {self.source}; known: {known}. Pass --prices FILE "
                "or --price-input/--price-cached-input/--price-output."
            )
        return self.prices[max(matches, key=len)]


def load_prices(path: Path | None = None) -> PriceTable:
    """The shipped price table, or a file in the same format."""
    source = str(path) if path else "inspect_personamem/prices.yaml"
    text = (
        path.read_text(encoding="utf-8")
        if path
        else package_files("inspect_personamem").joinpath("prices.yaml").read_text("utf-8")
    )
    data: dict[str, Any] = yaml.safe_load(text)
    try:
        prices = {name: Price(**values) for name, values in data["models"].items()}
    except (KeyError, TypeError) as ex:
        raise ValueError(
            f"{source}: expected 'models: {{name: {{input, cached_input, output}}}}' ({ex})"
        ) from None
    return PriceTable(
        prices=prices,
        as_of=str(data.get("as_of", "unknown")),
        source=source,
        sources={str(k): str(v) for k, v in (data.get("sources") or {}).items()},
    )


@dataclass(frozen=True)
class Estimate:
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


def estimate(
    split: Split,
    *,
    data_dir: str | None = None,
    repo_id: str = DEFAULT_REPO_ID,
    revision: str = DEFAULT_REVISION,
    order: SampleOrder = "interleaved",
    interleave_block: int = INTERLEAVE_BLOCK,
    settings: CacheSettings | None = None,
    output_tokens_per_question: int = 300,
) -> Estimate:
    """Count a run's tokens and simulate its prompt caching."""
    questions, source = locate_question_file(split, data_dir, repo_id, revision)
    records = read_questions(questions, split)
    settings = settings or CacheSettings()
    by_order = {o: requests_for(order_records(records, o, interleave_block)) for o in ORDERS}
    caching = {o: simulate(requests, settings) for o, requests in by_order.items()}
    requests = by_order[order]
    return Estimate(
        split=split,
        questions=len(records),
        source=source,
        cache=caching[order],
        shares={o: result.share for o, result in caching.items()},
        ideal_cached_tokens=ideal_cached_tokens(requests),
        prefix_tokens=sum(r.prefix_tokens for r in requests),
        output_tokens=output_tokens_per_question * len(records),
    )
