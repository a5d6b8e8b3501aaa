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
(`differences.py`). The tables of all this are `retrieval_tables.py`'s.
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
from inspect_personamem.report.differences import Groups, present_groups
from inspect_personamem.report.pairs import reference_pairs
from inspect_personamem.report.read.samples import SampleResult

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
                f"`evidence.where` says). The rule, as its log records it: "
                f"{s.run.evidence_located_by}"
            )
    return notes


def earlier_rule_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """For each run whose questions recorded their evidence but not the rule that
    located it, where its dataset version has since changed that rule
    (`Reported.earlier_evidence`): its evidence figures were made under the
    earlier rule, read from the log, not from the rule the package has now."""
    notes = []
    for s in summaries:
        earlier = s.run.entry.reported.earlier_evidence
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
    """The groups a version splits its retrieval runs' evidence by
    (`Reported.evidence_groups`)."""
    groups = {group.key: group for group in version.groups}
    return [groups[key] for key in version.reported.evidence_groups]


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
