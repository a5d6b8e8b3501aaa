"""What each run cost beside what it scored: tokens per question, and dollars where the
model's price is known.

Tokens come from the log (`logs.Tokens`): the answering model's as Inspect counted
them per sample, and a memory system's own LLM and embedding tokens as it reported
them per question. Prices are the package's price table (`cost/prices.yaml`, dated);
a model not in it gets no dollar figures rather than a guess. The memory system's
tokens are shown, not priced: the log does not say which models it called.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

from inspect_personamem.cost.prices import PER_MILLION, Price, PriceTable
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.labels import method_labels
from inspect_personamem.report.logs import SampleResult, Tokens
from inspect_personamem.report.tables import Cell, GainPair, Table


@dataclass(frozen=True)
class RunCost:
    summary: RunSummary
    tokens: Tokens
    """Mean per scored question."""
    price: Price | None
    """None where the model is not in the price table."""

    @property
    def dollars(self) -> float:
        """US dollars per question for the answering model; NaN without a price."""
        if self.price is None:
            return math.nan
        t, p = self.tokens, self.price
        write = p.cache_write if p.cache_write is not None else p.input
        return (
            t.uncached_input * p.input
            + t.cache_read * p.cached_input
            + t.cache_write * write
            + t.output * p.output
        ) / PER_MILLION


def run_costs(summaries: Sequence[RunSummary], prices: PriceTable) -> list[RunCost]:
    """Every run that scored a question, with its mean tokens and price."""
    costs = []
    for s in summaries:
        if not s.overall.n:
            continue
        try:
            price: Price | None = prices.price(s.run.model)
        except PersonaMemArgumentError:
            price = None
        costs.append(RunCost(s, mean_tokens(s.run.samples), price))
    return costs


def mean_tokens(samples: Sequence[SampleResult]) -> Tokens:
    """Each count's mean over the questions `samples` (none: zeros)."""
    return Tokens(
        **{
            f.name: math.fsum(getattr(q.tokens, f.name) for q in samples) / max(1, len(samples))
            for f in fields(Tokens)
        }
    )


def cost_table(costs: Sequence[RunCost], pairs: Sequence[GainPair], prices: PriceTable) -> Table:
    """One row per run: tokens and dollars per question, and dollars per point gained."""
    by_label = {c.summary.label: c for c in costs}
    baselines = {p.run.label: p for p in pairs}
    methods = method_labels([c.summary.run for c in costs])
    rows: list[tuple[Cell, ...]] = []
    for c, method in zip(costs, methods, strict=True):
        pair = baselines.get(c.summary.label)
        gain = math.nan
        extra = math.nan
        if pair is not None:
            gain = pair.run.overall.accuracy - pair.baseline.overall.accuracy
            base = by_label.get(pair.baseline.label)
            if base is not None and gain > 0:
                extra = (c.dollars - base.dollars) / (100 * gain)
        t = c.tokens
        rows.append(
            (
                c.summary.label,
                method,
                c.summary.overall.n,
                t.input,
                t.cache_read,
                t.output,
                t.memory_input or math.nan,
                t.memory_output or math.nan,
                c.dollars,
                c.summary.overall.accuracy,
                gain,
                extra,
            )  # fmt: skip
        )
    return Table(
        "cost",
        "Cost beside accuracy",
        "Per scored question (mean over its epochs): the answering model's input tokens "
        "(of them read from a cache) and output tokens, as Inspect logged them (less a "
        "grader's, bound to its role; a self-graded run's include its grading); the "
        "memory system's own input and output tokens (LLM and embedder), as it reported "
        "them (blank: it reported none); and the model's cost in US dollars at the "
        f"prices of `{prices.source}` (as of {prices.as_of}; blank: the model has no "
        "price there; the memory system's tokens are not priced). `gain`: accuracy over "
        "the run's no-history run (see `gain`); `USD per point`: the extra dollars per "
        "question over the no-history run for each accuracy point gained (blank without a "
        "gain or a price).",
        (
            "run",
            "method",
            "questions",
            "input tokens",
            "cached input tokens",
            "output tokens",
            "memory input tokens",
            "memory output tokens",
            "USD",
            "accuracy",
            "gain",
            "USD per point",
        ),  # fmt: skip
        tuple(rows),
    )
