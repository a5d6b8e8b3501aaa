"""The cost table: tokens and dollars per question beside accuracy, and dollars per
point gained (`report/costs.py` computes them)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_personamem.cost.prices import SHIPPED_AS_OF, PriceTable
from inspect_personamem.report.costs import RunCost
from inspect_personamem.report.labels import method_labels
from inspect_personamem.report.pairs import GainPair
from inspect_personamem.report.tables import Cell, Table


def cost_table(
    costs: Sequence[RunCost], pairs: Sequence[GainPair], prices: PriceTable, name: str = "cost"
) -> Table:
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
                c.says,
                c.summary.overall.accuracy,
                gain,
                extra,
            )  # fmt: skip
        )
    return Table(
        name,
        "Cost beside accuracy",
        "Per scored question (mean over its epochs): the answering model's input tokens "
        "(of them read from a cache) and output tokens, as Inspect logged them (less a "
        "grader's, bound to its role; a self-graded run's include its grading); the "
        "memory system's own input and output tokens (LLM and embedder), as it reported "
        "them (blank: it reported none); and the model's cost in US dollars, as Inspect "
        "logged it (a run made with `inspect eval --model-cost-config`), else computed "
        f"from its tokens at the prices of `{prices.source}` ({_as_of(prices)}; a batched "
        "run's at its provider's batch prices; blank: neither logged nor priced there; "
        "the memory system's tokens are not priced); `USD from` says which: `logged`, "
        "`computed`, `batch, computed`, `partly computed` (a run retried by `inspect "
        "eval-retry`, which takes no cost configuration) or `none`, and where the model "
        "has a long-context tier (a request over its threshold priced whole at higher "
        "rates), how many questions a computed figure prices a call at the tier, for how "
        "many it cannot tell the calls apart (priced at the standard rate: `tier "
        "unknown`), and for how many a logged figure is Inspect's standard rate (Inspect "
        "knows no tiers). Inspect logs a "
        "batched run's cost at the prices it was given, which know no batch discount: "
        "give it `inspect-personamem prices --batch`'s for a batch. `gain`: accuracy over "
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
            "USD from",
            "accuracy",
            "gain",
            "USD per point",
        ),  # fmt: skip
        tuple(rows),
    )


def _as_of(prices: PriceTable) -> str:
    """When the table's prices were read, where known."""
    if not prices.shipped:
        return "a table given"
    return (
        f"as of {SHIPPED_AS_OF}, or the date an entry gives; standard prices, a model's "
        "long-context tier not applied"
    )
