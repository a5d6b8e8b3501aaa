"""What a retrieval run's memory did (`history=rag`, `history=memory`): whether it found
each question's evidence and whether the model used it, how the run stands to its
upper bound and to the full history, and what the memory took besides tokens.

A retrieval run is one whose questions carry what its memory did (`SampleResult.memory`)
or a retrieval status (`SampleResult.retrieval`, from `history/recall.py`): `found`
(the retrieved items included a message of the evidence, as the run's dataset version
locates it), `missed` (none did), `unpositioned` (the items name no history position, a
memory system's own facts: not checked) or `not_located` (where the evidence lies is not
known: not checked). Only found and missed are checked; the others are counted apart,
never as misses. A log made before runs recorded the status has only the memory's times.

A wrong answer is a retrieval miss where the evidence was missed, and misuse where it
was found and the model answered wrong all the same. The run is set against the run of
the same model, split, grader and otherwise the same settings that was shown only the
evidence (`history=evidence`: the upper bound, `axes.evidence_settings`) and the one
that was shown the whole history (`axes.full_settings`), paired question by question
(`differences.py`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion, Group
from inspect_personamem.parameters import Settings
from inspect_personamem.report.accuracy import RunSummary, title_of
from inspect_personamem.report.axes import (
    comparable_rag_settings,
    evidence_settings,
    full_settings,
    no_history_settings,
)
from inspect_personamem.report.costs import mean_tokens
from inspect_personamem.report.differences import Groups, differences, present_groups
from inspect_personamem.report.pairs import reference_pairs
from inspect_personamem.report.read.samples import MemoryTime, SampleResult
from inspect_personamem.report.tables import (
    DIFFERENCE_COLUMNS,
    DIFFERENCE_NOTE,
    Cell,
    Table,
    difference_cells,
    difference_table,
)
from inspect_personamem.scoring.metrics import quantile

REFERENCES: tuple[tuple[str, Callable[[Settings], Mapping[str, Any]]], ...] = (
    ("evidence only (upper bound)", evidence_settings),
    ("full history", full_settings),
    ("rag, the same retriever and top_k", comparable_rag_settings),
    ("no history", no_history_settings),
)
"""What a retrieval run is measured against: its upper bound, the whole history, for a
run whose model searched the history itself the retrieval chosen for it at the same
`top_k`, and no history."""

FOUND_WORDS = (
    "`found`: the retrieved items included a message of the question's evidence (as its "
    "dataset version locates it); `missed`: checked, and none did; `unpositioned`: the "
    "items name no history position (a memory system's own facts), so they could not be "
    "checked; `not located`: where the evidence lies is not known. Only found and missed "
    "are checked; the other two are counted apart, never as misses."
)
"""What the retrieval statuses mean, for the tables' notes and the figures' captions."""


@dataclass(frozen=True)
class EvidenceUse:
    """How some questions of a retrieval run stand to their evidence: per retrieval
    status, its questions and the sum of their scores (a question's score: its mean
    over epochs)."""

    questions: int
    counts: Mapping[str, int]
    """Retrieval status -> its questions."""
    scores: Mapping[str, float]
    """Retrieval status -> the sum of its questions' scores."""
    right: float
    """The sum of all the questions' scores."""

    def accuracy(self, status: str) -> float:
        """Accuracy over the questions of `status`; NaN without any."""
        count = self.counts.get(status, 0)
        return self.scores.get(status, 0.0) / count if count else math.nan

    def wrong(self, status: str) -> float:
        """The wrong answers (one less each score) of the questions of `status`."""
        return self.counts.get(status, 0) - self.scores.get(status, 0.0)

    @property
    def errors(self) -> float:
        """The wrong answers of all the questions."""
        return self.questions - self.right

    def error_share(self, status: str) -> float:
        """The share of the errors that are wrong answers of `status` (`missed`: a
        retrieval miss; `found`: misuse); NaN without errors."""
        return self.wrong(status) / self.errors if self.errors else math.nan

    @property
    def found_share(self) -> float:
        """The share of the checked questions (found or missed) whose evidence was
        found (as the `evidence_found` metric computes it); NaN without any."""
        checked = self.counts.get("found", 0) + self.counts.get("missed", 0)
        return self.counts.get("found", 0) / checked if checked else math.nan


def evidence_use(samples: Sequence[SampleResult]) -> EvidenceUse:
    """How `samples` stand to their evidence (`EvidenceUse`)."""
    counts: dict[str, int] = {}
    scores: dict[str, float] = {}
    for sample in samples:
        if sample.retrieval is not None:
            counts[sample.retrieval] = counts.get(sample.retrieval, 0) + 1
            scores[sample.retrieval] = scores.get(sample.retrieval, 0.0) + sample.value
    return EvidenceUse(len(samples), counts, scores, math.fsum(s.value for s in samples))


def retrieves(summary: RunSummary) -> bool:
    """Whether a run retrieved: its scored questions carry what its memory did or a
    retrieval status."""
    return any(s.memory is not None or s.retrieval is not None for s in summary.run.samples)


@dataclass(frozen=True)
class Reference:
    """A run a retrieval run is measured against, both over the questions both scored."""

    kind: str
    """What the reference is (`REFERENCES`): `evidence only (upper bound)`, `full history`,
    ..."""
    run: RunSummary
    """The retrieval run over those questions."""
    reference: RunSummary


@dataclass(frozen=True)
class RetrievalRun:
    """A retrieval run, whole, with the runs it is measured against."""

    summary: RunSummary
    references: tuple[Reference, ...]

    @property
    def checked(self) -> bool:
        """Whether its questions carry a retrieval status (a log made before runs
        recorded it has none)."""
        return any(sample.retrieval is not None for sample in self.summary.run.samples)


def retrieval_runs(summaries: Sequence[RunSummary]) -> list[RetrievalRun]:
    """Every retrieval run (`retrieves`) with its references found (`REFERENCES`: the
    run of the same model, split, grader and otherwise the same settings; of several of
    one kind the latest complete one, `pairs.reference_pairs`)."""
    found = {
        kind: {run.label: (run, reference) for run, reference in reference_pairs(summaries, of)}
        for kind, of in REFERENCES
    }
    return [
        RetrievalRun(
            s,
            tuple(
                Reference(kind, *found[kind][s.label])
                for kind, _ in REFERENCES
                if s.label in found[kind]
            ),
        )
        for s in summaries
        if retrieves(s)
    ]


def upper_bound_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """For each upper bound (`Run.upper_bound`), for how many of its questions the
    evidence it was shown lay at known history positions: for the others it saw only
    what its version shows of an evidence it cannot place."""
    notes = []
    for s in summaries:
        recorded = [q.evidence_located for q in s.run.samples if q.evidence_located is not None]
        if s.run.upper_bound and recorded:
            notes.append(
                f"{s.label}: an upper bound, each question shown only its evidence; the "
                f"evidence was located in the history for {sum(recorded)} of "
                f"{len(recorded)} questions, and for the others the run saw only what its "
                "version shows of an evidence it cannot place (each sample's "
                "`evidence.where` says)"
            )
    return notes


def earlier_rule_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """For each run whose questions recorded their evidence but not the rule that
    located it, where its dataset version has since changed that rule
    (`DatasetVersion.earlier_evidence`): its evidence figures were made under the
    earlier rule, read from the log, not from the rule the package has now."""
    notes = []
    for s in summaries:
        earlier = s.run.entry.earlier_evidence
        recorded = [q for q in s.run.samples if q.evidence_located is not None]
        if earlier and recorded and not any(q.evidence_rule for q in recorded):
            notes.append(
                f"{s.label}: made with task version {s.run.version}, whose evidence was "
                f"{earlier}; its evidence figures (what `history=evidence` showed, "
                "`evidence_found`, recall, found against used, the bounds) are of that "
                "rule: run it again for today's"
            )
    return notes


def evidence_groups(version: DatasetVersion[Any]) -> list[Group]:
    """The groups a version splits its retrieval runs' evidence by (`evidence_groups`)."""
    groups = {group.key: group for group in version.groups}
    return [groups[key] for key in version.evidence_groups]


def use_by_value(
    summary: RunSummary, groups: Sequence[Group]
) -> list[tuple[Group | None, str, EvidenceUse]]:
    """A run's `EvidenceUse` over all its questions (group None, value `all questions`),
    then per value of each of `groups` its questions have (in `by_group` order)."""
    samples = summary.run.samples
    rows: list[tuple[Group | None, str, EvidenceUse]] = [
        (None, "all questions", evidence_use(samples))
    ]
    for group in groups:
        for value in summary.groups.get(group.key, {}):
            mine = [s for s in samples if s.groups[group.key] == value]
            rows.append((group, value, evidence_use(mine)))
    return rows


def shown_value(group: Group | None, value: str) -> str:
    """How a row or a bar of `use_by_value` names its value: its title (`title_of`), or
    `all questions`."""
    return title_of(group, value) if group else value


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


def measured_groups(summary: RunSummary, version: DatasetVersion[Any]) -> Groups:
    """The groups of questions a retrieval run is compared over beside `overall`: its
    questions whose evidence it found, those it missed, and each value of each of the
    version's evidence groups (`question type: ...`)."""
    groups: dict[str, Callable[[SampleResult], bool]] = {
        "evidence found": lambda sample: sample.retrieval == "found",
        "evidence missed": lambda sample: sample.retrieval == "missed",
    }
    for group in evidence_groups(version):
        groups.update(present_groups(summary, group, f"{group.title}: "))
    return groups


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
