"""What the runs with tools did with them, beside every run of the same version: its
accuracy, then per question (each sample epoch that recorded its tool use, scored or
not) the tool calls, the reads, the writes made on the user's behalf, the agent's turns,
and the questions whose agent ran out of its budget, which are left unscored and
counted here (`read/tool_use.py` reads the records)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.tables import Cell, Table


def _mean(values: Sequence[int | None]) -> float:
    """The mean of the known `values`; NaN where none is known."""
    known = [value for value in values if value is not None]
    return math.fsum(known) / len(known) if known else math.nan


PER_QUESTION = ("calls", "reads", "writes", "turns")
"""What a run's model did with its tools, each a mean per question with tools
(`per_question`)."""


def per_question(summary: RunSummary) -> dict[str, float]:
    """Each measure of `PER_QUESTION` -> its mean over the run's questions with tools
    (NaN where none is known: a run without tools)."""
    used = summary.run.tool_use
    return {measure: _mean([getattr(use, measure) for use in used]) for measure in PER_QUESTION}


def tool_use_table(summaries: Sequence[RunSummary], name: str) -> Table | None:
    """A row per run (those without tools blank beside their accuracy), where any of
    `summaries` used tools; None where none did."""
    if not any(s.run.tool_use for s in summaries):
        return None
    rows: list[tuple[Cell, ...]] = []
    for s in summaries:
        used = s.run.tool_use
        out = Counter(use.out_of_budget for use in used if use.out_of_budget is not None)
        rows.append(
            (
                s.label,
                s.overall.n,
                s.overall.accuracy,
                len(used) or None,
                *per_question(s).values(),
                sum(out.values()) if used else None,
                sum(out.values()) / len(used) if used else math.nan,
                ", ".join(f"{budget} {count}" for budget, count in sorted(out.items())),
            )
        )
    return Table(
        name,
        "Tool use beside accuracy: what each run's model read and wrote",
        "Every run, those without tools (the whole history, a memory) blank beside their "
        "accuracy. Per question with tools (each sample epoch that recorded its use, "
        "scored or not): `calls`, the tool calls it made (errors included); `reads`, those "
        "that read (the apps' reads; every call of the history's search and read tools); "
        "`writes`, what an agent wrote on the user's behalf (a post, a DM), each visible "
        "to its own question's later reads only; `turns`, the agent's turns (blank where "
        "the run records none). `out of budget`: the questions whose agent ran out of its "
        "turn, token or time budget before it replied, left unscored (never 0) and so "
        "outside `accuracy`, with their share and which budget.",
        (
            "run",
            "questions scored",
            "accuracy",
            "questions with tools",
            "calls per question",
            "reads per question",
            "writes per question",
            "turns per question",
            "out of budget",
            "share out of budget",
            "budget run out",
        ),
        tuple(rows),
    )
