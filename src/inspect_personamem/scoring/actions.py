"""What an agent answering a question did (`Actions`), as its history source keeps it in
the sample's metadata (`ACTIONS`) while it runs: its tool calls, reads, writes made on
the user's behalf, turns, budget, whether and why it stopped, and the faults of the
server that served its tools (each try it was retried after). A version's agent writes
it (PersonaMem-v3's apps, `history=apps`); the scorer, the metrics and the report read
it here, by field. Its JSON in the log is a log field: its keys and their order do not
change (`retries` and `faults` came last, and a record without them reads as none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

ACTIONS: Final = "actions"
"""The sample metadata key of the record."""


@dataclass(frozen=True)
class Budget:
    """One query's budget: model turns, and tokens (None: no cap)."""

    turns: int
    tokens: int | None


@dataclass
class Actions:
    """One question's agent record (`ACTIONS`), written as it happens (so that a
    question cut short keeps it too)."""

    setting: str
    """How the agent's tools were served (PersonaMem-v3: `apps` in process, `mcp`)."""
    server: str | None
    """The command line of the server that served them; None in process."""
    budget: Budget
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Each call: `{tool, arguments, error}` (error None where it answered)."""
    reads: int = 0
    """Calls without an error to a read tool."""
    writes: list[dict[str, Any]] = field(default_factory=list)
    """The writes made on the user's behalf, as the tools recorded them."""
    turns: int = 0
    out_of_budget: str | None = None
    """Which budget ran out (`turns`, `tokens`, `time`), where one did."""
    finished: bool = False
    """Whether the agent replied (its turns ended within its budget)."""
    stopped: str | None = None
    """Why it did not finish, in one line, where it says."""
    retries: int = 0
    """Times the question was tried again, from its start, on a fresh server, after a
    fault of the server that served its tools (PersonaMem-v3 over MCP)."""
    faults: list[str] = field(default_factory=list)
    """Each such fault, one line, in order: one per failed try."""

    @property
    def server_failed(self) -> bool:
        """Whether its server failed on its last try too: no reply, for want of tools."""
        return not self.finished and len(self.faults) > self.retries

    def json(self) -> dict[str, Any]:
        """The record as the log keeps it (keys in this order)."""
        return {
            "setting": self.setting,
            "server": self.server,
            "calls": self.calls,
            "reads": self.reads,
            "writes": self.writes,
            "turns": self.turns,
            "budget": {"turns": self.budget.turns, "tokens": self.budget.tokens},
            "out_of_budget": self.out_of_budget,
            "finished": self.finished,
            "stopped": self.stopped,
            "retries": self.retries,
            "faults": self.faults,
        }

    @classmethod
    def read(cls, metadata: Mapping[str, Any]) -> Actions | None:
        """The record a sample's metadata holds; None where it holds none."""
        record = metadata.get(ACTIONS)
        if not record:
            return None
        budget = record.get("budget") or {}
        return cls(
            setting=str(record.get("setting")),
            server=record.get("server"),
            budget=Budget(int(budget.get("turns") or 0), budget.get("tokens")),
            calls=list(record.get("calls") or ()),
            reads=int(record.get("reads") or 0),
            writes=list(record.get("writes") or ()),
            turns=int(record.get("turns") or 0),
            out_of_budget=record.get("out_of_budget") or None,
            finished=bool(record.get("finished")),
            stopped=record.get("stopped"),
            retries=int(record.get("retries") or 0),
            faults=list(record.get("faults") or ()),
        )

    def counts(self) -> dict[str, Any]:
        """What a score keeps of it: its counts, not its calls."""
        return {
            "calls": len(self.calls),
            "reads": self.reads,
            "writes": len(self.writes),
            "turns": self.turns,
            "out_of_budget": self.out_of_budget,
            "finished": self.finished,
            "retries": self.retries,
        }
