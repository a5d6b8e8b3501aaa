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

Where the run's model has a long-context tier in the table (a request over its
threshold priced whole at higher rates), a computed figure prices each call over the
threshold at the tier (`cost/calls.py`: the calls read from the log); a question whose
calls cannot be told apart is priced at the standard rate, and the run says how many
(`RunCost.says`). Inspect's logged cost knows no tiers (its `ModelCost` is four flat
rates): a logged figure is the standard rate's, and the run says for how many questions
a call was over the threshold.

`run_costs` is what a view of a report reads: each run's tokens and dollars per
question and where the dollars come from; `costs_tables.py` renders them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Literal

from inspect_ai.model import ModelCost

from inspect_personamem.cost.batch import batch_terms
from inspect_personamem.cost.calls import tier_split
from inspect_personamem.cost.prices import LongContext, PriceTable, tokens_cost
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
    tiered: int = 0
    """Questions whose computed dollars price a call at its model's long-context tier."""
    tier_unknown: int = 0
    """Questions computed at the standard rate though a tier may apply: their calls,
    over the threshold in all, cannot be told apart."""
    logged_standard: int = 0
    """Questions with a logged cost and a call over the tier's threshold (or calls over
    it in all that cannot be told apart), which Inspect logged at the standard rate."""

    @property
    def says(self) -> str:
        """Where the dollars come from, in words: `source`, and where a tier is not in
        them, for how many questions."""
        notes = [f"{self.tiered} at the long-context tier"] if self.tiered else []
        if self.tier_unknown:
            notes.append(f"tier unknown for {self.tier_unknown} (standard rate)")
        if self.logged_standard:
            notes.append(
                f"Inspect's standard rate for {self.logged_standard} with input over the tier"
            )
        return self.source + (f"; {', '.join(notes)}" if notes else "")


def run_costs(summaries: Sequence[RunSummary], prices: PriceTable) -> list[RunCost]:
    """Every run that scored a question, with its mean tokens and dollars per question."""
    return [run_cost(s, prices) for s in summaries if s.overall.n]


def run_cost(summary: RunSummary, prices: PriceTable) -> RunCost:
    """A run's mean tokens and dollars per question: each question's logged cost, or
    its tokens at the run's price (`run_price`), each call at its model's long-context
    tier where it is over the threshold (`run_tier`)."""
    run = summary.run
    samples = run.samples
    price, tier = run_price(run, prices), run_tier(run, prices)
    logged = sum(q.logged_cost is not None for q in samples)
    source: CostSource = "logged"
    if logged < len(samples):
        source = "none" if price is None else "partly computed" if logged else "computed"
        if source == "computed" and run.batched and batch_terms(run.model):
            source = "batch, computed"
    split = None if price is None or tier is None else tier_split(run.location, price, tier)
    dollars: list[float] = []
    counted: Counter[str] = Counter()
    for q in samples:
        added = 0.0 if split is None else split.question(q.questions, q.answers)
        dollars.append(question_cost(q, price, added or 0.0))
        if added != 0.0:
            unlogged = "tiered" if added else "tier_unknown"
            counted["logged_standard" if q.logged_cost is not None else unlogged] += 1
    mean = math.fsum(dollars) / max(1, len(dollars))
    return RunCost(
        summary,
        mean_tokens(samples),
        mean,
        source,
        counted["tiered"],
        counted["tier_unknown"],
        counted["logged_standard"],
    )


def run_price(run: Run, prices: PriceTable) -> ModelCost | None:
    """The price the run's tokens are computed at: its model's in the table, at its
    provider's batch rates where the run was batched; None without one."""
    try:
        price = prices.price(run.model)
    except PersonaMemArgumentError:
        return None
    terms = batch_terms(run.model) if run.batched else None
    return price if terms is None else terms.price(price)


def run_tier(run: Run, prices: PriceTable) -> LongContext | None:
    """The long-context tier of the run's model in the table (at its provider's batch
    rates where the run was batched); None where it has none."""
    tier = prices.tier(run.model)
    terms = batch_terms(run.model) if run.batched else None
    return tier if tier is None or terms is None else terms.tier(tier)


def question_cost(question: SampleResult, price: ModelCost | None, added: float = 0.0) -> float:
    """A question's dollars: as logged, else its tokens at `price` (NaN without one)
    with `added`, what its model's long-context tier adds to its calls over the
    threshold (`cost.calls.TierSplit.question`)."""
    if question.logged_cost is not None:
        return question.logged_cost
    if price is None:
        return math.nan
    t = question.tokens
    return tokens_cost(price, t.uncached_input, t.cache_read, t.cache_write, t.output) + added


def mean_tokens(samples: Sequence[SampleResult]) -> Tokens:
    """Each count's mean over the questions `samples` (none: zeros)."""
    return Tokens(
        **{
            f.name: math.fsum(getattr(q.tokens, f.name) for q in samples) / max(1, len(samples))
            for f in fields(Tokens)
        }
    )
