"""What a question's model did with the tools it was offered, as its sample recorded it:
an agent over a version's own tools (`actions`: PersonaMem-v3's apps, in process or over
MCP) or the search and read tools over the history (`tools`, `history/tools.py`).

`actions` records each call, the reads, the writes made on the user's behalf, the
agent's turns and, where the agent ran out of its budget (`turns`, `tokens`, `time`),
which: such a question has no reply and is left unscored, so its tool use is read from
every sample epoch, scored or not. `tools` counts its calls (`asked`), every one a read;
it records no turns and no writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.scoring.actions import ACTIONS, Actions

TOOLS: Final = "tools"
RECORDED: Final = (ACTIONS, TOOLS)
"""The sample metadata a run with tools records its use of them in."""


@dataclass(frozen=True)
class ToolUse:
    """One sample epoch's use of its tools."""

    calls: int
    reads: int
    writes: int
    turns: int | None
    """The agent's turns (`actions`); None where the record has none (`tools`)."""
    out_of_budget: str | None
    """Which budget the agent ran out of (`turns`, `tokens`, `time`); None: it did not
    (or the record says nothing of budgets)."""


def tool_use(records: Mapping[str, Mapping[str, Any]]) -> ToolUse | None:
    """A sample epoch's tool use from its records (`RECORDED` by name); None where it
    has neither."""
    actions = Actions.read(records)
    if actions is not None:
        return ToolUse(
            calls=len(actions.calls),
            reads=actions.reads,
            writes=len(actions.writes),
            turns=actions.turns,
            out_of_budget=actions.out_of_budget,
        )
    tools = records.get(TOOLS)
    if tools is not None:
        asked = int(tools.get("asked") or 0)
        return ToolUse(calls=asked, reads=asked, writes=0, turns=None, out_of_budget=None)
    return None
