"""A run's tool use as the report reads and shows it (`report/read/tool_use.py`,
`report/tool_use.py`): an agent's `actions` record and the history tools' `tools` record,
and the table that sets the runs with tools beside every run, counting those out of
budget (values worked by hand)."""

from __future__ import annotations

import math

import pytest
from support.reports import a_summary, results

from inspect_personamem.report.read.tool_use import ToolUse, tool_use
from inspect_personamem.report.tool_use import tool_use_table


def actions(calls: int, reads: int, writes: int, turns: int, out: str | None) -> dict[str, object]:
    return {
        "setting": "apps",
        "server": None,
        "calls": [{"tool": "t", "arguments": {}, "error": None}] * calls,
        "reads": reads,
        "writes": [{"tool": "threads_create_post"}] * writes,
        "turns": turns,
        "budget": {"turns": 15, "tokens": None},
        "out_of_budget": out,
    }


def test_an_agents_actions_and_the_history_tools_are_read_as_tool_use() -> None:
    assert tool_use({"actions": actions(4, 3, 1, 5, None)}) == ToolUse(4, 3, 1, 5, None)
    assert tool_use({"actions": actions(15, 15, 0, 15, "turns")}).out_of_budget == "turns"  # type: ignore[union-attr]
    # the history's search and read tools: every call a read, no turns, no writes
    assert tool_use({"tools": {"asked": 2, "budget": 6}}) == ToolUse(2, 2, 0, None, None)
    assert tool_use({"retrieval": {"status": "found"}}) is None


def test_the_table_sets_the_agent_beside_the_run_without_tools() -> None:
    full = a_summary("full history", results([1.0, 0.0]))
    uses = (
        ToolUse(4, 3, 1, 5, None),
        ToolUse(2, 2, 0, 3, None),
        ToolUse(15, 15, 0, 15, "turns"),
        ToolUse(9, 8, 0, 7, "tokens"),
    )
    agent = a_summary("apps", results([1.0, 1.0]), tool_use=uses)
    assert tool_use_table([full], "t") is None  # no run used tools
    table = tool_use_table([full, agent], "v3_tool_use")
    assert table is not None
    rows = {row[0]: dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert rows["full history"]["questions with tools"] is None
    assert math.isnan(float(rows["full history"]["calls per question"]))  # type: ignore[arg-type]
    row = rows["apps"]
    assert row["questions scored"] == 2 and row["accuracy"] == 1.0
    assert row["questions with tools"] == 4
    assert row["calls per question"] == pytest.approx((4 + 2 + 15 + 9) / 4)
    assert row["reads per question"] == pytest.approx((3 + 2 + 15 + 8) / 4)
    assert row["writes per question"] == pytest.approx(1 / 4)
    assert row["turns per question"] == pytest.approx((5 + 3 + 15 + 7) / 4)
    assert row["out of budget"] == 2 and row["share out of budget"] == pytest.approx(0.5)
    assert row["budget run out"] == "tokens 1, turns 1"
