"""The cost table (`report/costs_tables.py`): tokens and dollars per question beside
accuracy, the gain over the no-history run, and the dollars per point it cost; on
hand-built runs and costs (`report/costs.py` computes them: test_costs.py)."""

from __future__ import annotations

import math

from support.reports import a_summary, results

from inspect_personamem.cost.prices import SHIPPED_AS_OF, PriceTable
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.costs import RunCost
from inspect_personamem.report.costs_tables import cost_table
from inspect_personamem.report.pairs import gain_pairs
from inspect_personamem.report.read.samples import Tokens

PRICES = PriceTable({}, "prices.yaml", False)


def nan(cell: object) -> bool:
    return isinstance(cell, float) and math.isnan(cell)


def cost(summary: RunSummary, dollars: float, memory: float = 0.0) -> RunCost:
    tokens = Tokens(uncached_input=900.0, cache_read=100.0, output=50.0, memory_input=memory)
    return RunCost(summary, tokens, dollars, "computed")


def test_dollars_per_point_are_the_extra_dollars_over_the_no_history_run_per_point() -> None:
    """Full history 0.75, no history 0.25: a gain of 0.5, 50 points, for $0.03 - $0.01
    a question, $0.0004 a point. A run no better than its baseline, or without one, has
    no dollars per point; memory tokens none were reported are blank."""
    none = a_summary("none", results([0.0, 0.0], [1.0, 0.0]), settings={"history": "none"})
    full = a_summary("full", results([1.0, 0.0], [1.0, 1.0]))
    worse = a_summary("rag", results([0.0, 0.0], [0.0, 0.0]), settings={"history": "rag"})
    other = a_summary("b", results([1.0]), model="mockllm/model-b")
    summaries = [none, full, worse, other]
    costs = [cost(none, 0.01), cost(full, 0.03, memory=12.0), cost(worse, 0.02), cost(other, 0.5)]
    table = cost_table(costs, gain_pairs(summaries), PRICES)
    assert table.name == "cost" and len(table.columns) == len(table.rows[0]) == 13
    rows = {row[0]: dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert rows["full"]["method"] == "full history" and rows["full"]["questions"] == 4
    assert (rows["full"]["input tokens"], rows["full"]["cached input tokens"]) == (1000.0, 100.0)
    assert rows["full"]["memory input tokens"] == 12.0
    assert rows["full"]["gain"] == 0.5
    assert rows["full"]["USD per point"] == (0.03 - 0.01) / (100 * 0.5)
    assert rows["rag"]["gain"] == -0.25 and nan(rows["rag"]["USD per point"])
    for label in ("none", "b"):
        assert nan(rows[label]["gain"]) and nan(rows[label]["USD per point"])
        assert nan(rows[label]["memory input tokens"])


def test_the_note_says_which_prices_and_of_when() -> None:
    assert "prices of `prices.yaml` (a table given;" in cost_table([], [], PRICES).note
    shipped = PriceTable({}, "the shipped table", True)
    assert f"(as of {SHIPPED_AS_OF}, or the date an entry gives; standard prices" in (
        cost_table([], [], shipped).note
    )
