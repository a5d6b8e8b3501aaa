"""The tables of what retrieval runs' memories did (`report/retrieval_tables.py`): what
the memory took besides tokens, by hand on hand-built records and from a log made before
runs recorded retrieval. Found against used and the bounds, through the report:
test_retrieval.py."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log
from support.memories import SleepingMemory
from support.reports import QUESTIONS, EvidenceLogs, a_summary, read_csv, results

from inspect_personamem.report import build_report
from inspect_personamem.report.read.samples import MemoryTime
from inspect_personamem.report.retrieval import RetrievalRun
from inspect_personamem.report.retrieval_tables import memory_cost_table


def number(cell: object) -> float:
    assert isinstance(cell, int | float), cell
    return float(cell)


def test_the_memorys_time_by_hand() -> None:
    """Two questions: searches of 0.1 s and 0.3 s (median 200 ms, 95th percentile
    0.1 + 0.95 x 0.2 s), add calls of 0.2 s and 0.4 s in the first (300 ms, 390 ms), the
    memory's 0.7 s and 0.3 s of 2 s and 1 s worked, the loop held 20 ms at most, and 9
    texts embedded in the run, 4 from the cache (the largest counts). A run without a
    memory record has no times."""
    first, second = results([1.0, 0.0])
    times = [
        MemoryTime((0.1,), (0.2, 0.4), 0.7, 2.0, 0.01, {"embedded": 5}),
        MemoryTime((0.3,), (), 0.3, 1.0, 0.02, {"embedded": 9, "cache_hits": 4}),
    ]
    memory = a_summary(
        "memory",
        [replace(first, memory=times[0]), replace(second, memory=times[1])],
        settings={"history": "memory"},
    )
    bare = a_summary("bare", [first, second], settings={"history": "rag"})
    table = memory_cost_table([RetrievalRun(memory, ()), RetrievalRun(bare, ())], "memory_cost")
    row, empty = (dict(zip(table.columns, r, strict=True)) for r in table.rows)
    expected = {
        "questions": 2, "accuracy": 0.5, "search p50 ms": 200.0, "search p95 ms": 290.0,
        "search total s": 0.4, "add calls": 2, "add p50 ms": 300.0, "add p95 ms": 390.0,
        "add total s": 0.6, "longest loop block ms": 20.0, "memory s per question": 0.5,
        "other working s per question": 1.0, "texts embedded": 9.0,
        "embedding cache hits": 4.0,
    }  # fmt: skip
    for column, value in expected.items():
        assert math.isclose(number(row[column]), value), column
    assert math.isnan(number(row["memory input tokens"]))
    assert (empty["add calls"], empty["search total s"]) == (0, 0.0)
    for column in ("search p50 ms", "longest loop block ms", "memory s per question"):
        assert math.isnan(number(empty[column])), column


def test_a_log_made_before_runs_recorded_retrieval_still_reads(
    evidence_logs: EvidenceLogs, tmp_path: Path
) -> None:
    """A memory run without `retrieval`, `evidence` or each add call's seconds: only the
    memory's times are shown (no add calls), no found against used; a memory system's
    embedding counts (the run's so far) show their largest."""
    log = read_eval_log(evidence_logs.memory)
    for i, sample in enumerate(log.samples or []):
        for key in ("retrieval", "evidence"):
            sample.metadata.pop(key)
        sample.metadata["memory"].pop("ingest_calls")
        sample.metadata["memory"]["embedding_counts"] = {"embedded": i, "cache_hits": 2 * i}
    write_eval_log(log, str(tmp_path / "old.json"))
    report = build_report([tmp_path / "old.json"], tmp_path / "out")
    [row] = read_csv(tmp_path / "out", "memory_cost")
    assert (row["add calls"], row["add p50 ms"]) == ("0", "")
    assert float(row["search p50 ms"]) >= SleepingMemory.SLEEP * 1000
    assert (row["texts embedded"], row["embedding cache hits"]) == (
        str(float(QUESTIONS - 1)), str(float(2 * (QUESTIONS - 1))),
    )  # fmt: skip
    assert not any(t.name in {"evidence_use", "evidence_bounds"} for t in report.tables)
