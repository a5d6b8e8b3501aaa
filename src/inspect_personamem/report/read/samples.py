"""A question's result in a run, read from its sample summaries: its score over the
scored epochs, how its answer was read, its tokens and logged cost, its grader's
calibration and what a retrieval run's memory did and took."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from inspect_ai.log import EvalSampleSummary, read_eval_log_samples
from inspect_ai.scorer import Score, Value, value_to_float

from inspect_personamem.cost.calls import answering
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.read.tool_use import RECORDED
from inspect_personamem.scoring.grader.correction import TrialCounts
from inspect_personamem.scoring.metrics import group_value, trial_record
from inspect_personamem.scoring.rows import Part, joined

READ = frozenset({"single", "named", "read"})
"""The statuses of an answer read: `single` (a chosen answer with one option letter),
`named` (an open answer whose grader named one candidate) and `read` (an open answer
a judge scored against the label, `Run.judged`, with a score that could be read; a
reply a version's own rules scored, PersonaMem-v3's `scored_as` `rules`).
Every other status is unparsed: a chosen answer's `none`, `multiple` and
`not_an_option`, an open answer's `none` (the grader named no candidate) and
`unreadable` (no verdict could be read), a judged one's `judge_unread` and
`empty_reply`."""


_to_float = value_to_float()


@dataclass(frozen=True)
class Tokens:
    """A question's tokens (mean over its scored epochs): the answering model's, from
    Inspect's per-sample `model_usage` less its `role_usage` (a grader's tokens), and
    the memory system's own, from what it reported (`memory.memory_usage` in the
    sample metadata: its `*input_tokens` and `*output_tokens` counts, LLM and embedder
    alike)."""

    uncached_input: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    output: float = 0.0
    memory_input: float = 0.0
    memory_output: float = 0.0

    @property
    def input(self) -> float:
        """All of the model's input tokens, cached or not."""
        return self.uncached_input + self.cache_read + self.cache_write


@dataclass(frozen=True)
class Calibration:
    """How a grader did when shown the candidates themselves as the reply under two
    orders: one question's counts (`calibration_*` in its score's metadata, first epoch
    only), or the sums over a run's questions. A judge scoring against the label
    (`Run.judged`) is calibrated by `separated` alone; a grader of the candidates by the
    others (its trials of every kind are each question's `SampleResult.trials`)."""

    questions: int = 0
    """Questions calibrated."""
    candidates: int = 0
    """Candidates shown."""
    order_changes: int = 0
    """Candidates whose verdict changed with the order."""
    separated: int = 0
    """Questions on which the judge scored the correct candidate above the three others."""

    @property
    def position_bias(self) -> float:
        """Share of candidates whose verdict changed with the order (0.0 for a grader
        blind to order); NaN without trials."""
        return self.order_changes / self.candidates if self.candidates else math.nan

    @property
    def separation(self) -> float:
        """A judge's share of calibrated questions on which it scored the correct
        candidate above the others (1.0 for a judge that tells the preference apart);
        NaN without calibrated questions."""
        return self.separated / self.questions if self.questions else math.nan

    @staticmethod
    def total(counts: Iterable[Calibration]) -> Calibration:
        """The sums of `counts`."""
        items = list(counts)
        return Calibration(*(sum(getattr(c, f.name) for c in items) for f in fields(Calibration)))


@dataclass(frozen=True)
class MemoryTime:
    """A retrieval run's question: the memory's wall time (its `memory` record) over the
    scored epochs, beside the sample's working time."""

    searches: tuple[float, ...]
    """Each scored epoch's search seconds."""
    adds: tuple[float, ...]
    """Each `add` call's seconds (a session, or part of one), every scored epoch's."""
    memory: float
    """Mean over the scored epochs of the memory's seconds: adding the messages it
    lacked, and searching."""
    working: float
    """Mean over the scored epochs of the sample's working time (Inspect's: its wall time
    less the waits for retries, rate limits and shared resources); NaN where a log
    lacks it."""
    loop_blocked: float
    """The longest any call into the memory held the event loop, over the epochs."""
    embedding: Mapping[str, int]
    """The run's embedding counts as this question recorded them (`requested`,
    `embedded`, `cache_hits`, ...: cumulative over the run, the largest over its
    epochs); empty for a retriever without embeddings."""


@dataclass(frozen=True)
class SampleResult:
    """One question's score in a run (mean over the epochs that were scored)."""

    id: str
    groups: Mapping[str, str]
    """The metadata it is grouped by (each `Group.key` of its dataset version), as text."""
    context_id: str
    """What it is clustered by (its version's `cluster`: the history it shares)."""
    value: float
    statuses: dict[str, float]
    """Each status of the scored epochs' answers -> its share of them (`READ`)."""
    epochs: int
    first_epoch_status: str
    """Inspect keeps the first epoch's score metadata, an unanswered epoch's too; its
    `unparsed` and `grader_*` metrics use it."""
    tokens: Tokens = Tokens()
    logged_cost: float | None = None
    """US dollars the answering model's calls cost, as Inspect logged them (each call's
    `total_cost`, which Inspect sets where it has the model's price: `inspect eval
    --model-cost-config`), less a grader's (mean over the scored epochs); None where an
    epoch's usage carries no cost."""
    calibration: Calibration = Calibration()
    """The grader's calibration on this question (open answers; zeros elsewhere)."""
    retrieval: str | None = None
    """Whether its retrieval found the evidence: the `status` of its first scored epoch's
    `retrieval` record (`history/recall.py`): `found` (an item lies in the evidence),
    `missed` (no item does), `unpositioned` (items without history positions, so not
    checked) or `not_located` (where the evidence lies is not known, so not checked);
    None outside retrieval runs."""
    memory: MemoryTime | None = None
    """What the memory's work took (retrieval runs; None elsewhere)."""
    evidence_located: bool | None = None
    """Whether its evidence lies at known history positions, where the run recorded it
    (retrieval and upper-bound runs; None elsewhere)."""
    evidence_rule: str | None = None
    """The rule that located its evidence (`Evidence.rule`), where the run recorded one:
    None elsewhere, and in a log made before runs recorded it."""
    trials: TrialCounts = field(default_factory=dict)
    """The grader's trials on this question per kind, as its first epoch's score holds
    them (`scoring.metrics.trial_record`; open answers on a calibration question, empty
    elsewhere)."""
    answers: Mapping[int, str] = field(default_factory=dict)
    """Each scored epoch -> its answer as scored (`Score.answer`): of an open answer the
    grader's verdict, the candidate it named (`(b)`), `none` or `unreadable`."""
    part: Part | None = None
    """Where its version's headline counts it only as part of a row made of several
    questions (`scoring.rows`: PersonaMem-v3's lifecycle probes), that part, from its
    first scored epoch's score; None for a question that is a row of its own."""
    made_of: tuple[str, ...] = ()
    """The ids of the questions a row made of several is made of (`joined_rows`);
    empty for a question that is a row of its own."""

    @property
    def questions(self) -> tuple[str, ...]:
        """The ids of the questions it stands for: itself, or a row's parts."""
        return self.made_of or (self.id,)


def joined_rows(
    samples: Sequence[SampleResult],
) -> tuple[tuple[SampleResult, ...], tuple[str, ...]]:
    """The rows a version's headline counts: each question that is a row of its own,
    and each whole row of parts (`scoring.rows.joined`, as the version's metrics join
    them) as one result: its first part's, under the row's id with the row's value and
    its parts' tokens and cost summed; and the ids of the parts left without their row
    (counted nowhere, as the metrics leave them)."""
    alone = [s for s in samples if s.part is None]
    rows, left = joined(((s, p.row), p, s.value) for s in samples if (p := s.part) is not None)
    whole = []
    for row in rows:
        parts = [s for s, _ in row.items]
        tokens = {
            f.name: math.fsum(getattr(s.tokens, f.name) for s in parts) for f in fields(Tokens)
        }
        whole.append(
            replace(
                parts[0],
                id=row.items[0][1],
                value=row.value,
                tokens=Tokens(**tokens),
                logged_cost=_sum_or_none([s.logged_cost for s in parts]),
                part=None,
                made_of=tuple(s.id for s in parts),
            )
        )
    return (*alone, *whole), tuple(s.id for s, _ in left)


def _sum_or_none(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return math.fsum(known) if len(known) == len(values) else None


def unscored(value: Value) -> bool:
    """Whether a score value is Inspect's unscored sentinel (`Score.unscored`: NaN),
    which Inspect's metrics and epoch reducers skip."""
    return isinstance(value, float) and math.isnan(value)


RECORDS = ("memory", "retrieval", "evidence", *RECORDED)
"""The sample metadata a retrieval run (`history=rag`, `history=memory`) records beside
its groups: what the memory did and took (`memory`), whether its items held the
evidence (`retrieval`, `history/recall.py`) and where the evidence lies (`evidence`,
`data/evidence.py`); an upper-bound run (`history=evidence`) records `evidence` alone;
a run with tools, its use of them (`tool_use.RECORDED`)."""
Records = dict[tuple[str, int], dict[str, dict[str, Any]]]
"""(question id, epoch) -> each of `RECORDS` its sample's metadata holds."""
_SAMPLE_PARTS = {"messages", "events", "attachments", "store", "output", "scores"}
"""What a full sample read for its metadata leaves out."""


def records_of(file: str, summaries: Sequence[EvalSampleSummary]) -> Records:
    """Each sample's `RECORDS`, from the summaries; where a summary thinned one of them
    to text (Inspect keeps a metadata value in a summary only under 1k characters: the
    retrieved items make `memory` longer), from the samples themselves, read without
    their messages and events."""
    records: Records = {}
    thinned = False
    for summary in summaries:
        records[str(summary.id), summary.epoch] = _recorded(summary.metadata)
        thinned = thinned or any(isinstance(summary.metadata.get(k), str) for k in RECORDS)
    if thinned:
        for sample in read_eval_log_samples(
            file, all_samples_required=False, exclude_fields=_SAMPLE_PARTS
        ):
            key = (str(sample.id), sample.epoch)
            if key in records:
                records[key] = _recorded(sample.metadata or {})
    return records


def _recorded(metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Those of `RECORDS` that `metadata` holds whole."""
    return {key: value for key in RECORDS if isinstance(value := metadata.get(key), dict)}


_ANSWERING = ("uncached_input", "cache_read", "cache_write", "output")
"""The `Tokens` of the answering model's counts (`cost.calls.Counts`), in their order."""


def _tokens(summaries: Sequence[EvalSampleSummary], records: Records) -> Tokens:
    """The mean tokens of a question's scored epochs."""
    totals: Counter[str] = Counter()
    for summary in summaries:
        used = answering(summary.model_usage, summary.role_usage)  # less a grader's
        for name, count in zip(_ANSWERING, used, strict=True):
            totals[name] += count
        memory = records[str(summary.id), summary.epoch].get("memory", {})
        for key, count in (memory.get("memory_usage") or {}).items():
            for side in ("input", "output"):
                if key.endswith(f"{side}_tokens"):
                    totals[f"memory_{side}"] += count
    return Tokens(**{key: count / len(summaries) for key, count in totals.items()})


def _logged_cost(summaries: Sequence[EvalSampleSummary]) -> float | None:
    """The mean over a question's scored epochs of the answering model's logged cost:
    every model's `total_cost` less that of the models bound to roles (a grader's).
    None where any usage lacks one: Inspect prices a call only where it has the price
    of its model, and with one model unpriced the rest cannot be told apart."""
    totals = []
    for summary in summaries:
        every = [*summary.model_usage.values(), *summary.role_usage.values()]
        if not every or any(used.total_cost is None for used in every):
            return None
        models = math.fsum(used.total_cost or 0.0 for used in summary.model_usage.values())
        roles = math.fsum(used.total_cost or 0.0 for used in summary.role_usage.values())
        totals.append(models - roles)
    return math.fsum(totals) / len(totals)


def _memory_time(scored: Sequence[EvalSampleSummary], records: Records) -> MemoryTime | None:
    """What the memory's work took in a question's scored epochs (their `memory`
    records), beside their working time; None where none recorded it."""
    kept = [
        (summary, memory)
        for summary in scored
        if (memory := records[str(summary.id), summary.epoch].get("memory")) is not None
    ]
    if not kept:
        return None
    memories = [memory for _, memory in kept]
    embedding: dict[str, int] = {}
    for memory in memories:  # counts so far in the run: the largest of each
        for key, count in (memory.get("embedding_counts") or {}).items():
            embedding[key] = max(embedding.get(key, 0), int(count))
    return MemoryTime(
        searches=tuple(float(m["search_seconds"]) for m in memories if "search_seconds" in m),
        adds=tuple(float(seconds) for m in memories for seconds in m.get("ingest_calls", ())),
        memory=_mean(
            [
                float(m.get("ingest_seconds", 0.0)) + float(m.get("search_seconds", 0.0))
                for m in memories
            ]
        ),
        working=_mean([summary.working_time for summary, _ in kept]),
        loop_blocked=max(float(m.get("loop_blocked_seconds", 0.0)) for m in memories),
        embedding=embedding,
    )


def _mean(values: Sequence[float | None]) -> float:
    """The mean of `values`; NaN where one is missing (a log that lacks it)."""
    known = [value for value in values if value is not None]
    return math.fsum(known) / len(values) if len(known) == len(values) else math.nan


def sample_result(
    file: str,
    benchmark: str,
    scorer: str,
    epochs: list[EvalSampleSummary],
    records: Records,
) -> SampleResult | None:
    """A question's result over its scored epochs; None where no epoch was scored."""
    epochs = sorted(epochs, key=lambda summary: summary.epoch)
    first = epochs[0]
    metadata = first.metadata
    version = VERSIONS[benchmark]
    keys, cluster = tuple(group.key for group in version.groups), version.cluster
    missing = [key for key in (*keys, cluster) if key not in metadata]
    if missing:
        raise ReportError(f"{file}: sample {first.id} lacks metadata field(s) {', '.join(missing)}")
    first_score = next(summary.scores[scorer] for summary in epochs if summary.scores)
    scored = [
        summary
        for summary in epochs
        if summary.scores and not unscored(summary.scores[scorer].value)
    ]
    scores = [summary.scores[scorer] for summary in scored if summary.scores]
    if not scores:
        return None
    statuses = Counter(_status(score) for score in scores)
    recorded = records[str(scored[0].id), scored[0].epoch]
    evidence, retrieval = recorded.get("evidence"), recorded.get("retrieval")
    return SampleResult(
        id=str(first.id),
        groups={key: group_value(metadata[key]) for key in keys},
        context_id=str(metadata[cluster]),
        value=sum(_to_float(score.value) for score in scores) / len(scores),
        statuses={status: count / len(scores) for status, count in statuses.items()},
        epochs=len(scores),
        first_epoch_status=_status(first_score),
        tokens=_tokens(scored, records),
        logged_cost=_logged_cost(scored),
        calibration=Calibration.total(map(_calibration, scores)),
        retrieval=None if retrieval is None else str(retrieval["status"]),
        memory=_memory_time(scored, records),
        evidence_located=None if evidence is None else bool(evidence["located"]),
        evidence_rule=None if evidence is None else evidence.get("rule"),
        trials=trial_record(first_score.metadata),
        answers={
            summary.epoch: score.answer or "" for summary, score in zip(scored, scores, strict=True)
        },
        part=Part.of(scores[0].metadata),
    )


def _status(score: Score) -> str:
    """How the answer was read (`READ`); a log without a status, a chosen answer's."""
    return str((score.metadata or {}).get("status", "single"))


def _calibration(score: Score) -> Calibration:
    """The grader's calibration counts in a score's metadata (none outside the
    calibration questions' first epoch)."""
    metadata = score.metadata or {}
    separates = metadata.get("calibration_separates")
    return Calibration(
        questions=int(bool(metadata.get("calibration_trials")) or separates is not None),
        candidates=int(metadata.get("calibration_candidates", 0)),
        order_changes=int(metadata.get("calibration_order_changes", 0)),
        separated=int(separates or 0),
    )
