"""PersonaMem runs read out of Inspect logs with Inspect's own log API.

Only each log's header and its sample summaries are read, never the messages, so a
large log is read in about the time its header takes. A summary keeps the sample
metadata its dataset version groups and clusters its questions by (`Group.key`,
`DatasetVersion.cluster`), the score's answer (an open answer's verdict) and its
metadata (`status`; an open answer's trial counts, `grader_trials` and
`calibration_*`), which is all a report needs, but for what a retrieval run
records (`RECORDS`): where a summary thinned one of those, the samples are read too,
without their messages and events.

Real logs are untidy, and each case is kept visible rather than smoothed over:
interrupted runs (status `started`, `error` or `cancelled`) give the samples that
were scored; samples that errored are counted; samples stopped by an Inspect limit
before the model answered (an unscored score, NaN, which Inspect's metrics skip) are
counted and skipped alike; with several epochs a question's value is its mean over
the scored epochs; several logs of the same model and setting stay separate runs,
told apart by their start time.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from inspect_ai.log import (
    EvalLog,
    EvalSampleSummary,
    read_eval_log,
    read_eval_log_sample_summaries,
    read_eval_log_samples,
)
from inspect_ai.model import GenerateConfig, ModelConfig
from inspect_ai.scorer import Score, Value, value_to_float

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.cost.batch import batched
from inspect_personamem.data.release import NOT_RELEASED, RELEASED, SYNTHETIC
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.registry import VERSIONS, version_of_task
from inspect_personamem.errors import PersonaMemError
from inspect_personamem.history.table import HISTORIES
from inspect_personamem.run.arguments import scoring_defaults
from inspect_personamem.run.migration import current_arguments
from inspect_personamem.scoring.grader.correction import TrialCounts
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD
from inspect_personamem.scoring.metrics import trial_record

SCORER = "personamem_scorer"
"""The task's scorer; a log naming another single scorer (`graded_scorer` of open
answers) uses that one."""

GRADER_ROLE = "grader"
"""The Inspect model role of the model that grades open answers."""

READ = frozenset({"single", "named", "read"})
"""The statuses of an answer read: `single` (a chosen answer with one option letter),
`named` (an open answer whose grader named one candidate) and `read` (an open answer
a judge scored against the label, `Run.judged`, with a score that could be read).
Every other status is unparsed: a chosen answer's `none`, `multiple` and
`not_an_option`, an open answer's `none` (the grader named no candidate) and
`unreadable` (no verdict could be read), a judged one's `judge_unread` and
`empty_reply`."""


def setting_defaults(benchmark: str) -> dict[str, str]:
    """The value a log of dataset version `benchmark` (its registry key) without an
    argument ran with: the task's default."""
    return {key: str(value) for key, value in scoring_defaults(VERSIONS[benchmark]).items()}


ANSWER_NEUTRAL_MODEL_ARGS = frozenset({"device"})
"""Model arguments (`-M`) that say where a model runs, not which model answers: left
out of a run's model. Every other model argument is part of it (`Run.model_id`)."""

REPLY_NEUTRAL_SETTINGS = frozenset(
    {
        "max_retries", "timeout", "attempt_timeout", "stream_idle_timeout",
        "max_connections", "adaptive_connections", "cache", "cache_prompt", "batch",
    }
)  # fmt: skip
"""Generation settings that say how a model is called, not what it replies: left out of
a grader's identity. Every other one (temperature, max_tokens, ...) is part of it."""

BASE_URL = "base_url"
"""The name a model's base URL has among its arguments in its identity (`ModelId`):
no model argument can have it, `get_model` takes its own `base_url`."""

Items = tuple[tuple[str, str], ...]
"""Names and values as text, sorted by name."""
ModelId = tuple[str, Items]
"""A model's name, and its arguments (`-M`, less `ANSWER_NEUTRAL_MODEL_ARGS`) with its
base URL (`BASE_URL`, where one was given) as text."""


class Grader(NamedTuple):
    """The model that graded a run's open answers, and how it generated."""

    model: ModelId
    settings: Items = ()
    """Its generation settings (`GenerateConfig`) that were set, less
    `REPLY_NEUTRAL_SETTINGS`, as text."""

    @property
    def shown(self) -> ModelId:
        """The grader as labels show it: its settings among its arguments, so that two
        graders of one name that differ in temperature read `(temperature=...)`."""
        name, args = self.model
        return (name, tuple(sorted((*args, *self.settings))))


RunKey = tuple[ModelId, str, Items, Grader | None]
"""Model x split x setting x grader (`Run.key`)."""

UNRELEASED_MARK = "not released data"
"""What the label of a run on other data than the released file says."""
SYNTHETIC_MARK = "synthetic data"
"""What the label of a run on generated data says."""

_to_float = value_to_float()


class ReportError(PersonaMemError):
    """The report cannot be made: a missing path, an unusable log or option, no matplotlib."""


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


@dataclass(frozen=True)
class Run:
    """One log of a PersonaMem task: what was run, and the scored questions."""

    location: str
    eval_id: str
    """Inspect's id of the eval that made the replies (`eval.eval_id`): unique to each
    run, kept by `inspect score`, so that logs sharing it hold the same replies (graded
    again: `report/agreement.py`)."""
    task: str
    version: str
    """The task version (`Task(version=...)`) the log was made with."""
    benchmark: str
    """Its dataset version's key in the registry (`entry`)."""
    split: str
    """Which questions it asked, as its version says (`DatasetVersion.selection`: a
    split, `128k`; a subset and length, `benchmark 32k`)."""
    selected: dict[str, str]
    """Its version's selectors (`split`; `subset`, `length`) -> their values, from the
    log's task arguments and metadata; a selector neither records is left out."""
    model: str
    model_args: dict[str, str]
    """The model's arguments (`-M`, the log's `model_args`) as text, less
    `ANSWER_NEUTRAL_MODEL_ARGS`."""
    base_url: str | None
    """The model's base URL where one was given (`--model-base-url`): another server
    may serve another model under the same name."""
    generate_config: dict[str, str]
    """How the model generated (`GenerateConfig`: temperature, max_tokens, ...) where
    set, as text, less `REPLY_NEUTRAL_SETTINGS`, as a grader's `settings` are kept."""
    settings: dict[str, str]
    created: datetime
    status: str
    epochs: int
    reducer: str
    planned: int
    """Questions in the run's dataset (after any `--limit`)."""
    dataset_size: int
    """Questions in the task's dataset (the split's file), before any `--limit`."""
    samples: tuple[SampleResult, ...]
    errors: int
    """Sample epochs that ended in an error (they have no score)."""
    unanswered: int
    """Sample epochs stopped by an Inspect limit before the model answered: their score
    is Inspect's unscored sentinel (NaN), which Inspect's metrics skip, and so does the
    report."""
    limits: dict[str, int]
    """The limit that stopped each unanswered sample epoch (`message`, `time`, ...; the
    sample summary's `limit`) -> how many it stopped."""
    stored_metrics: dict[str, float] | None
    """The metrics Inspect stored for the scorer; None for an unfinished run."""
    stored_ids: frozenset[str] | None
    """The questions those metrics are over (the log's epoch reductions), None where the
    log does not say: an interrupted run's metrics cover the samples finished before
    the stop, which can be fewer than the scored samples the log holds."""
    data_release: str | None
    """The task's `data_release` metadata: `RELEASED`, why the question file is not
    the released one (`NOT_RELEASED`...), or what generated it (`SYNTHETIC`...); None for
    a log made before the task recorded it (unknown)."""
    data_checked: str | None
    """The task's `data_checked` metadata: which files were verified against the release,
    and how; None where the log does not say."""
    data_source: str | None
    """The task's `data_source` metadata: `local folder ...`, or `hf://datasets/{repo}@
    {revision}` (with the former name given, where one was); None where the log does
    not say."""
    grader: Grader | None = None
    """The model that graded open answers (`answer=open`; `_grader`); None for other
    answers."""
    batched: bool = False
    """Whether its model's requests went through the provider's batch API (`--batch`,
    the log's generation config)."""

    @property
    def model_id(self) -> ModelId:
        """The model: its name, arguments and base URL. Two `hf/local` runs with another
        `model_path`, two `personamem/oracle` runs with another `decay`, or two
        `openai/x` runs against two servers, are two models."""
        return _model_id(self.model, self.model_args, self.base_url)

    @property
    def upper_bound(self) -> bool:
        """Whether it saw only what no method is given (`history=evidence`: each
        question's evidence): a ceiling for the methods, never set beside published
        numbers (`AxisValue.upper_bound`)."""
        return HISTORIES[self.settings["history"]].upper_bound

    @property
    def entry(self) -> DatasetVersion[Any]:
        """Its dataset version's entry in the registry."""
        return VERSIONS[self.benchmark]

    @property
    def defaults(self) -> dict[str, str]:
        """The task's defaults of the settings (`setting_defaults`)."""
        return setting_defaults(self.benchmark)

    @property
    def changed_settings(self) -> list[str]:
        """Its settings that differ from the task's defaults, as `key=value`."""
        return [f"{k}={v}" for k, v in self.settings.items() if v != self.defaults[k]]

    @property
    def self_graded(self) -> bool:
        """Whether the model under test graded its own open answers: its grader is the
        same model (name, arguments and base URL; how it generated aside), whether by
        `grader=self` or bound to the grader role."""
        return self.grader is not None and self.grader.model == self.model_id

    @property
    def scored_as(self) -> str:
        """How its answers were scored: its answer's way (`chosen`, `graded`), unless its
        version scores them otherwise (`DatasetVersion.scored_as`)."""
        own = ANSWERS[self.settings["answer"]].scored_as
        return self.entry.scored_as(own, self.settings)

    @property
    def judged(self) -> bool:
        """Whether its version scored its answers otherwise than its answer does: a
        judge scoring open answers against the label (`judge=preference`), a score from
        0 to 1, not a choice."""
        return self.scored_as != ANSWERS[self.settings["answer"]].scored_as

    @property
    def key(self) -> RunKey:
        """Model x split x setting x grader: runs with equal keys differ only in time.

        The split, not the task name: `personamem_128k` and `personamem -T split=128k`
        are the same task.
        """
        return self.key_with(self.settings)

    def key_with(self, settings: Mapping[str, str]) -> RunKey:
        """The key of a run of this model, split and grader with `settings`."""
        return (self.model_id, self.split, tuple(sorted(settings.items())), self.grader)

    @property
    def shortfalls(self) -> list[str]:
        """Why the run is incomplete, a few words each: a status other than success, or
        questions unscored, errored or stopped by a limit. None for a complete run, also
        one over a subset or other data: complete, but not comparable with published
        numbers (`glance.caveats`)."""
        words = [f"status {self.status}"] if self.status != "success" else []
        if len(self.samples) < self.planned:
            words.append(f"{len(self.samples)} of {self.planned} scored")
        if self.errors:
            words.append(f"{self.errors} errored")
        if self.unanswered:
            words.append(f"{self.unanswered} not answered: stopped by an Inspect limit")
        return words

    @property
    def complete(self) -> bool:
        """Whether the run succeeded with every question it planned scored."""
        return not self.shortfalls

    @property
    def subset(self) -> str:
        """`subset 10/2727` for a run over part of its split (`--limit`, `--sample-id`),
        else empty."""
        return (
            f"subset {self.planned}/{self.dataset_size}" if self.planned < self.dataset_size else ""
        )

    @property
    def synthetic(self) -> str:
        """What generated the run's data (`data_release` after `SYNTHETIC`); empty for
        real data, or where the log does not say."""
        if self.data_release is None or not self.data_release.startswith(SYNTHETIC):
            return ""
        return self.data_release.removeprefix(SYNTHETIC).strip() or "a generator not named"

    @property
    def unreleased(self) -> str:
        """Why the run's question file is not the released one; empty where it is, where
        the data are synthetic (`synthetic`), or where the log does not say."""
        if self.data_release in (None, RELEASED) or self.synthetic:
            return ""
        return self.data_release.removeprefix(NOT_RELEASED) or self.data_release

    @property
    def marks(self) -> list[str]:
        """What every label of the run says about its data: `subset 10/2727`, `not
        released data`, `synthetic data`."""
        data = (self.unreleased and UNRELEASED_MARK) or (self.synthetic and SYNTHETIC_MARK)
        return [mark for mark in (self.subset, data) if mark]


@dataclass
class ReadResult:
    runs: list[Run]
    notes: list[str]
    """What was skipped or is worth knowing, one line each (printed by the command)."""


LOG_SUFFIXES = (".eval", ".json")


def log_files(paths: Sequence[str | Path]) -> list[str]:
    """Every log file named by `paths` (files, or folders searched recursively).

    In a folder every `.eval` and `.json` file counts (hidden folders aside), because
    Inspect's `list_eval_logs` lists a `.json` log only under a name that begins with
    Inspect's timestamp, so a renamed or rewritten `.json` log would be skipped unseen.
    A `.json` file that is not a log is skipped with a note when it is read.
    """
    found: list[str] = []
    for path in map(Path, paths):
        if path.is_dir():
            files = [
                file
                for file in path.rglob("*")
                if file.suffix in LOG_SUFFIXES
                and file.is_file()
                and not any(part.startswith(".") for part in file.relative_to(path).parts)
            ]
            # oldest first: start times have whole seconds, so this orders runs begun
            # within the same second
            found.extend(str(f) for f in sorted(files, key=lambda f: (f.stat().st_mtime, f)))
        elif path.is_file():
            found.append(str(path))
        else:
            raise ReportError(f"{path}: no such log file or folder")
    return found


def read_runs(paths: Sequence[str | Path]) -> ReadResult:
    """The PersonaMem runs in `paths`, oldest first; other tasks' logs are skipped."""
    result = ReadResult(runs=[], notes=[])
    files = log_files(paths)
    if not files:
        raise ReportError(f"no Inspect logs (.eval or .json) in {', '.join(map(str, paths))}")
    for file in files:
        try:
            # a .eval header carries the reductions; a .json log's header-only read drops
            # them, so it is read whole (its summaries are read whole anyway)
            header = read_eval_log(file, header_only=not file.endswith(".json"))
        except Exception as error:  # a damaged file must not stop the whole report
            result.notes.append(f"skipped {file}: not a readable Inspect log ({error})")
            continue
        name = header.eval.task.rsplit("/", 1)[-1]
        version = version_of_task(name)
        if version is None:
            result.notes.append(f"skipped {file}: task {header.eval.task!r} is not PersonaMem")
            continue
        try:
            summaries = (
                [sample.summary() for sample in header.samples]
                if header.samples is not None
                else read_eval_log_sample_summaries(file)
            )
            runs = [_run(file, header, version.key, summaries, s) for s in gradings(header)]
        except Exception as error:  # damaged samples, or a log of an older package version
            result.notes.append(f"skipped {file}: its samples cannot be read ({error})")
            continue
        for run in runs:
            result.runs.append(run)
            result.notes.extend(_run_notes(run))
    result.runs.sort(key=lambda run: run.created)
    return result


def gradings(header: EvalLog) -> list[str]:
    """The scores a log holds of its replies, each read as a run of its own: the run's
    scorer's (`SCORER`, else the first), then each grading `inspect score --action
    append` wrote beside it, which Inspect keys by the scorer's name and a number
    (`graded_scorer1`), as a re-grade written to a log of its own is read."""
    names = [scorer.name for scorer in header.eval.scorers or []]
    scorer = SCORER if SCORER in names or not names else names[0]
    appended = [
        score.name
        for score in (header.results.scores if header.results is not None else [])
        if re.fullmatch(rf"{re.escape(scorer)}\d+", score.name)
    ]
    return [scorer, *appended]


def _run(
    file: str,
    header: EvalLog,
    benchmark: str,
    summaries: Sequence[EvalSampleSummary],
    scorer: str,
) -> Run:
    """The run of `file` as its scores `scorer` grade it."""
    spec = header.eval
    # version 1's method= too, and a repository's former name
    task_args = current_arguments(spec.task_args or {}, VERSIONS[benchmark].release)
    settings = {
        key: str(task_args[key]) if key in task_args else default
        for key, default in setting_defaults(benchmark).items()
    }
    metadata: dict[str, Any] = spec.metadata or {}
    recorded = {**task_args, **metadata}
    split = VERSIONS[benchmark].selection(recorded, spec.task)
    epochs: dict[str, list[EvalSampleSummary]] = defaultdict(list)
    errors = 0
    limits: Counter[str] = Counter()
    for summary in summaries:
        if summary.error is not None:
            errors += 1
        elif summary.scores and scorer in summary.scores:
            epochs[str(summary.id)].append(summary)
            if unscored(summary.scores[scorer].value):
                limits[summary.limit or "unknown"] += 1
    stored = None
    if header.results is not None:
        stored = {
            name: float(metric.value)
            for score in header.results.scores
            if score.name == scorer
            for name, metric in score.metrics.items()
            if isinstance(metric.value, int | float)
        }
    stored_ids = None
    if stored is not None and header.reductions:
        stored_ids = frozenset(
            str(score.sample_id)
            for reduction in header.reductions
            if reduction.scorer == scorer
            for score in reduction.samples
            if not unscored(score.value)
        )
    records = _records(file, [s for group in epochs.values() for s in group])
    planned = len(spec.dataset.sample_ids) if spec.dataset.sample_ids else spec.dataset.samples or 0
    model_args = _model_args(spec.model_args or {})
    model_id = _model_id(spec.model, model_args, spec.model_base_url)
    return Run(
        location=file,
        eval_id=spec.eval_id,
        task=spec.task,
        version=str(spec.task_version),
        benchmark=benchmark,
        split=split,
        selected={
            p.name: str(recorded[p.name])
            for p in VERSIONS[benchmark].selectors
            if recorded.get(p.name) is not None
        },
        model=spec.model,
        model_args=model_args,
        base_url=spec.model_base_url,
        generate_config=_generation(spec.model_generate_config),
        settings=settings,
        created=datetime.fromisoformat(spec.created).astimezone(timezone.utc),
        status=header.status,
        epochs=spec.config.epochs or 1,
        reducer=", ".join(spec.config.epochs_reducer or ["mean"]),
        planned=planned,
        dataset_size=max(planned, spec.dataset.samples or 0),
        samples=tuple(
            sample
            for sample_epochs in epochs.values()
            if (sample := _sample(file, benchmark, scorer, sample_epochs, records)) is not None
        ),
        errors=errors,
        unanswered=limits.total(),
        limits=dict(limits),
        stored_metrics=stored,
        stored_ids=stored_ids,
        data_release=str(metadata["data_release"]) if "data_release" in metadata else None,
        data_checked=str(metadata["data_checked"]) if "data_checked" in metadata else None,
        data_source=str(metadata["data_source"]) if "data_source" in metadata else None,
        grader=_grader(
            settings,
            model_id,
            spec.model_roles,
            [s.scores[scorer] for group in epochs.values() for s in group if s.scores],
        ),
        batched=batched(header.plan.config),
    )


def _model_args(args: Mapping[str, Any]) -> dict[str, str]:
    """A model's arguments as text, less `ANSWER_NEUTRAL_MODEL_ARGS`."""
    return _as_text(args, ANSWER_NEUTRAL_MODEL_ARGS)


def _as_text(values: Mapping[str, Any], neutral: frozenset[str]) -> dict[str, str]:
    """`values` as text (JSON but for strings), less the names in `neutral`."""
    return {
        key: value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        for key, value in values.items()
        if key not in neutral
    }


def _model_id(name: str, args: Mapping[str, Any], base_url: str | None) -> ModelId:
    """A model's identity (`ModelId`)."""
    items = _model_args(args) | ({BASE_URL: base_url} if base_url else {})
    return (name, tuple(sorted(items.items())))


def _generation(config: GenerateConfig) -> dict[str, str]:
    """The generation settings that were set, as text, less `REPLY_NEUTRAL_SETTINGS`."""
    return _as_text(config.model_dump(exclude_none=True), REPLY_NEUTRAL_SETTINGS)


def _grader_of(config: ModelConfig) -> Grader:
    """The grader a model config names (`Grader`)."""
    settings = _generation(config.config)
    return Grader(
        _model_id(config.model, config.args, config.base_url), tuple(sorted(settings.items()))
    )


def _grader(
    settings: Mapping[str, str],
    model: ModelId,
    roles: Mapping[str, ModelConfig | list[ModelConfig]] | None,
    scores: Iterable[Score],
) -> Grader | None:
    """The model that graded an open run's answers (`Run.grader`); None for other runs.

    The one its scores name (`GRADER_RECORD`): a re-grade by `inspect score` names its
    own grader there, while the log's header keeps the run's roles. Where no score names
    one (a log made before they did), the one bound to the grader role (of a list, the
    first: the one the scorer's `get_model` returns), or with `grader=self` the model
    under test.
    """
    if settings["answer"] != "open":
        return None
    recorded = {_recorded_grader(score) for score in scores} - {None}
    if len(recorded) > 1:
        raise ReportError(
            f"its scores name {len(recorded)} different graders ({GRADER_RECORD}): re-grade "
            "every sample with one grader"
        )
    if recorded:
        return recorded.pop()
    if settings["grader"] == "self":
        return Grader(model)
    role = (roles or {}).get(GRADER_ROLE)
    config = role[0] if isinstance(role, list) and role else role
    if not isinstance(config, ModelConfig):
        raise ReportError(
            f"answer=open graded by the {GRADER_ROLE} role, but the log records no model "
            "bound to it (eval.model_roles)"
        )
    return _grader_of(config)


def _recorded_grader(score: Score) -> Grader | None:
    """The grader a score names (`GRADER_RECORD`), if it names one."""
    record = (score.metadata or {}).get(GRADER_RECORD)
    if record is None:
        return None
    if not isinstance(record, dict):  # Inspect's summaries drop a value over 1k
        raise ReportError(f"its scores' {GRADER_RECORD} cannot be read: {str(record)[:80]}")
    return _grader_of(ModelConfig.model_validate(record))


def unscored(value: Value) -> bool:
    """Whether a score value is Inspect's unscored sentinel (`Score.unscored`: NaN),
    which Inspect's metrics and epoch reducers skip."""
    return isinstance(value, float) and math.isnan(value)


RECORDS = ("memory", "retrieval", "evidence")
"""The sample metadata a retrieval run (`history=rag`, `history=memory`) records beside
its groups: what the memory did and took (`memory`), whether its items held the
evidence (`retrieval`, `history/recall.py`) and where the evidence lies (`evidence`,
`data/evidence.py`); an upper-bound run (`history=evidence`) records `evidence` alone."""
Records = dict[tuple[str, int], dict[str, dict[str, Any]]]
"""(question id, epoch) -> each of `RECORDS` its sample's metadata holds."""
_SAMPLE_PARTS = {"messages", "events", "attachments", "store", "output", "scores"}
"""What a full sample read for its metadata leaves out."""


def _records(file: str, summaries: Sequence[EvalSampleSummary]) -> Records:
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


def _tokens(summaries: Sequence[EvalSampleSummary], records: Records) -> Tokens:
    """The mean tokens of a question's scored epochs."""
    totals: Counter[str] = Counter()
    for summary in summaries:
        # every model's usage, less that of the models bound to roles (a grader's)
        usages = [(1, used) for used in summary.model_usage.values()]
        usages += [(-1, used) for used in summary.role_usage.values()]
        for sign, used in usages:
            totals["uncached_input"] += sign * used.input_tokens
            totals["cache_read"] += sign * (used.input_tokens_cache_read or 0)
            totals["cache_write"] += sign * (used.input_tokens_cache_write or 0)
            totals["output"] += sign * used.output_tokens
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


def _sample(
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
        groups={key: str(metadata[key]) for key in keys},
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


def _run_notes(run: Run) -> list[str]:
    where = f"{Path(run.location).name} ({run.model})"
    notes: list[str] = []
    if run.status != "success" or len(run.samples) < run.planned:
        notes.append(
            f"{where}: status {run.status}, {len(run.samples)} of {run.planned} questions "
            "scored; partial results are reported as such"
        )
    if run.errors:
        notes.append(f"{where}: {run.errors} sample(s) ended in an error and have no score")
    if run.unanswered:
        limits = ", ".join(f"{limit} limit: {count}" for limit, count in sorted(run.limits.items()))
        notes.append(
            f"{where}: {run.unanswered} sample(s) not answered: stopped by an Inspect limit "
            f"({limits}) before the model replied; left out of the scores, as Inspect's "
            "metrics leave them out"
        )
    if run.epochs > 1:
        notes.append(
            f"{where}: {run.epochs} epochs; each question counts once, with its mean over epochs"
        )
    return notes
