"""What each run cost beside what it scored: tokens per question, and dollars.

Tokens come from the log (`read.samples.Tokens`): the answering model's as Inspect counted
them per sample, and a memory system's own LLM and embedding tokens as it reported
them per question. Dollars are what Inspect logged (`read.samples.SampleResult.logged_cost`,
for a run made with `inspect eval --model-cost-config`), and where it logged none,
computed here from the tokens at the package's price table (`cost/model_costs.yaml`,
dated; a batched run's at its provider's batch prices, `cost/batch.py`); a run whose
model is not in the table gets no computed figure rather than a guess. Each run says
which (`RunCost.source`). The memory system's tokens are shown, not priced: the log
does not say which models it called.

`run_costs` is what a view of a report reads: each run's tokens and dollars per
question and where the dollars come from; `costs_tables.py` renders them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Literal

from inspect_ai.model import ModelCost

from inspect_personamem.cost.batch import batch_terms
from inspect_personamem.cost.prices import PriceTable, tokens_cost
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.read.runs import Run
from inspect_personamem.report.read.samples import SampleResult, Tokens

CostSource = Literal["logged", "computed", "partly computed", "batch, computed", "none"]
"""Where a run's dollars come from: Inspect logged every question's (`logged`); none,
so computed from its tokens at the table's prices (`computed`; `batch, computed` at
the batch prices of a batched run); some, the rest computed (`partly computed`: an
`inspect eval-retry`, which takes no cost configuration, of a priced run); or nowhere,
neither logged nor a price known (`none`)."""


@dataclass(frozen=True)
class RunCost:
    summary: RunSummary
    tokens: Tokens
    """Mean per scored question."""
    dollars: float
    """US dollars per scored question (mean) for the answering model; NaN where it is
    neither logged nor priced."""
    source: CostSource


def run_costs(summaries: Sequence[RunSummary], prices: PriceTable) -> list[RunCost]:
    """Every run that scored a question, with its mean tokens and dollars per question."""
    return [run_cost(s, prices) for s in summaries if s.overall.n]


def run_cost(summary: RunSummary, prices: PriceTable) -> RunCost:
    """A run's mean tokens and dollars per question: each question's logged cost, or
    its tokens at the run's price (`run_price`)."""
    samples = summary.run.samples
    price = run_price(summary.run, prices)
    logged = sum(q.logged_cost is not None for q in samples)
    source: CostSource = "logged"
    if logged < len(samples):
        source = "none" if price is None else "partly computed" if logged else "computed"
        if source == "computed" and summary.run.batched and batch_terms(summary.run.model):
            source = "batch, computed"
    dollars = [question_cost(q, price) for q in samples]
    return RunCost(summary, mean_tokens(samples), math.fsum(dollars) / max(1, len(dollars)), source)


def run_price(run: Run, prices: PriceTable) -> ModelCost | None:
    """The price the run's tokens are computed at: its model's in the table, at its
    provider's batch rates where the run was batched; None without one."""
    try:
        price = prices.price(run.model)
    except PersonaMemArgumentError:
        return None
    terms = batch_terms(run.model) if run.batched else None
    return price if terms is None else terms.price(price)


def question_cost(question: SampleResult, price: ModelCost | None) -> float:
    """A question's dollars: as logged, else its tokens at `price` (NaN without one)."""
    if question.logged_cost is not None:
        return question.logged_cost
    if price is None:
        return math.nan
    t = question.tokens
    return tokens_cost(price, t.uncached_input, t.cache_read, t.cache_write, t.output)


def mean_tokens(samples: Sequence[SampleResult]) -> Tokens:
    """Each count's mean over the questions `samples` (none: zeros)."""
    return Tokens(
        **{
            f.name: math.fsum(getattr(q.tokens, f.name) for q in samples) / max(1, len(samples))
            for f in fields(Tokens)
        }
    )
