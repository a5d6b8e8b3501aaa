"""The tables of what retrieval runs' memories did (`report/retrieval.py` analyses it):
found against used, each run against its upper bound, the full history and no history,
and what the memory took besides tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.report.costs import mean_tokens
from inspect_personamem.report.differences import differences
from inspect_personamem.report.read.samples import MemoryTime
from inspect_personamem.report.retrieval import (
    FOUND_WORDS,
    RetrievalRun,
    evidence_groups,
    measured_groups,
    shown_value,
    use_by_value,
)
from inspect_personamem.report.tables import (
    DIFFERENCE_COLUMNS,
    DIFFERENCE_NOTE,
    Cell,
    Table,
    difference_cells,
    difference_table,
)
from inspect_personamem.scoring.metrics import quantile


def evidence_use_table(
    runs: Sequence[RetrievalRun], version: DatasetVersion[Any], name: str
) -> Table:
    """Found against used: per retrieval run, overall and per value of each of the
    version's evidence groups, how many questions' evidence was found, missed or not
    checked, the accuracy when found and when missed, and which share of the errors
    are retrieval misses and which misuse."""
    rows: list[tuple[Cell, ...]] = []
    for r in runs:
        for group, value, use in use_by_value(r.summary, evidence_groups(version)):
            rows.append(
                (
                    r.summary.label,
                    group.title if group else "",
                    shown_value(group, value),
                    use.questions,
                    use.counts.get("found", 0),
                    use.counts.get("missed", 0),
                    use.counts.get("unpositioned", 0),
                    use.counts.get("not_located", 0),
                    use.found_share,
                    use.accuracy("found"),
                    use.accuracy("missed"),
                    use.errors,
                    use.error_share("missed"),
                    use.error_share("found"),
                )
            )
    return Table(
        name,
        "Found against used: did the memory find the evidence, and did the model use it?",
        "Per retrieval or memory run, over all its questions and per value of each group. "
        f"{FOUND_WORDS} `found share`: found over found and missed. `accuracy if found` "
        "and `accuracy if missed`: over those questions (a judged run's: its mean score). "
        "`errors`: the wrong answers (one less each question's score, a question's score "
        "its mean over epochs); `errors: missed`: the share of them whose evidence the "
        "memory missed (a retrieval miss); `errors: found`: the share whose evidence it "
        "found, the model answering wrong all the same (misuse); the rest are wrong "
        "answers of questions not checked. With several epochs a question's status is "
        "its first scored epoch's.",
        (
            "run",
            "questions by",
            "value",
            "questions",
            "found",
            "missed",
            "unpositioned",
            "not located",
            "found share",
            "accuracy if found",
            "accuracy if missed",
            "errors",
            "errors: missed",
            "errors: found",
        ),
        tuple(rows),
    )


def evidence_bounds_table(
    runs: Sequence[RetrievalRun], version: DatasetVersion[Any], name: str
) -> Table:
    """Each retrieval run against its references (`REFERENCES`), paired over the
    questions both scored: overall, macro average, on the questions whose
    evidence it found and missed, and per value of each evidence group."""
    rows = [
        ((ref.run.label, ref.kind, ref.reference.label, measure,
          *difference_cells(measure, d, ref.run, ref.reference)), measure, d)
        for r in runs
        for ref in r.references
        for measure, d in differences(
            ref.run, ref.reference, measured_groups(ref.run, version)
        )
    ]  # fmt: skip
    return difference_table(
        name,
        "Retrieval against its upper bound, the full history and no history",
        "Each retrieval, memory or tools run minus the run of the same model (name and "
        "model arguments), split, grader and otherwise the same settings that was shown "
        "only each question's evidence (`history=evidence`: the upper bound, what a "
        "perfect retriever would hand over), the one shown the whole history "
        "(`history=full`), for a run whose model searched the history itself "
        "(`history=tools`) the `rag` run handed as many items by the same retriever, and "
        "the one shown no history (`history=none`): overall, on the questions whose "
        "evidence the run found (`evidence found`: there the model had what it needed) "
        "and missed, and per "
        f"value of each group. {FOUND_WORDS} {DIFFERENCE_NOTE}",
        ("run", "against", "reference run", *DIFFERENCE_COLUMNS),
        tuple(rows),
    )


MS = 1000.0
"""Milliseconds a second: a call's time is shown in ms (a BM25 search takes well under
one), totals and per-question times in seconds."""


def _spread(seconds: Sequence[float]) -> tuple[float, float, float]:
    """Median and 95th percentile of calls' `seconds` in ms, and their total in seconds
    (NaN, NaN, 0 for none)."""
    return quantile(seconds, 0.5) * MS, quantile(seconds, 0.95) * MS, math.fsum(seconds)


def _most(times: Sequence[MemoryTime], count: str) -> float:
    """The largest of an embedding count over the questions (the counts are the run's
    so far): the run's total; NaN where none recorded it."""
    counts = [t.embedding[count] for t in times if count in t.embedding]
    return float(max(counts)) if counts else math.nan


def memory_cost_table(runs: Sequence[RetrievalRun], name: str) -> Table:
    """Per retrieval run, beside its accuracy: how long the memory's searches and add
    calls took, the longest it held the event loop, its time against the rest of the
    samples' working time, and its own tokens and embeddings."""
    rows: list[tuple[Cell, ...]] = []
    for r in runs:
        samples = r.summary.run.samples
        times = [s.memory for s in samples if s.memory is not None]
        searches = [t for m in times for t in m.searches]
        adds = [t for m in times for t in m.adds]
        memory = math.fsum(m.memory for m in times) / len(times) if times else math.nan
        working = math.fsum(m.working for m in times) / len(times) if times else math.nan
        tokens = mean_tokens(samples)
        rows.append(
            (
                r.summary.label,
                r.summary.overall.n,
                r.summary.overall.accuracy,
                *_spread(searches),
                len(adds),
                *_spread(adds),
                max((m.loop_blocked for m in times), default=math.nan) * MS,
                memory,
                working - memory,
                tokens.memory_input or math.nan,
                tokens.memory_output or math.nan,
                _most(times, "embedded"),
                _most(times, "cache_hits"),
            )
        )
    return Table(
        name,
        "What the memory took besides tokens: latency and its own usage",
        "Wall time, every scored epoch's: a call's in milliseconds, totals and per "
        "question in seconds, measured around the calls on the event loop (with many "
        "questions in flight it includes time the loop spent on others: compare runs "
        "made with the same `--max-connections`). `search`: each question's search of the "
        "memory; `add`: each call adding messages to it (a session, or part of one; a "
        "memory fed incrementally adds only what a question's history holds beyond the "
        "last one's), with median (p50), 95th percentile (p95) and total. `longest loop "
        "block`: the longest any call into the memory held the event loop without "
        "yielding (every other question waited that long). Per question (the mean over "
        "the questions of each one's mean over its epochs): `memory s`, the memory's "
        "seconds (adding and searching); `other "
        "working s`, the sample's working time (Inspect's `working_time`: its wall time "
        "less the waits for retries, rate limits and shared resources) less the memory's "
        "seconds: the model's replies, scoring and the rest of the solver, with any wait "
        "for another question's use of the same history's memory. `memory input/output "
        "tokens`: the memory system's own LLM and embedder tokens per question, as it "
        "reported them (blank: none reported). `texts embedded` and `embedding cache "
        "hits`: the run's, for a dense retriever (blank: no embeddings).",
        (
            "run",
            "questions",
            "accuracy",
            "search p50 ms",
            "search p95 ms",
            "search total s",
            "add calls",
            "add p50 ms",
            "add p95 ms",
            "add total s",
            "longest loop block ms",
            "memory s per question",
            "other working s per question",
            "memory input tokens",
            "memory output tokens",
            "texts embedded",
            "embedding cache hits",
        ),
        tuple(rows),
    )
