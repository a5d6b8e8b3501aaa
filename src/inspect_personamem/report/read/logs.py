"""PersonaMem runs read out of Inspect logs with Inspect's own log API.

Only each log's header and its sample summaries are read, never the messages, so a
large log is read in about the time its header takes. A summary keeps the sample
metadata its dataset version groups and clusters its questions by (`Group.key`,
`DatasetVersion.cluster`), the score's answer (an open answer's verdict) and its
metadata (`status`; an open answer's trial counts, `grader_trials` and
`calibration_*`), which is all a report needs, but for what a retrieval run
records (`read/samples.py`: `RECORDS`): where a summary thinned one of those, the
samples are read too, without their messages and events. What the task wrote of how it
ran (`run/facts.py`) is read from its metadata.

Real logs are untidy, and each case is kept visible rather than smoothed over:
interrupted runs (status `started`, `error` or `cancelled`) give the samples that
were scored; samples that errored are counted; samples stopped by an Inspect limit
before the model answered (an unscored score, NaN, which Inspect's metrics skip) are
counted and skipped alike; with several epochs a question's value is its mean over
the scored epochs; several logs of the same model and setting stay separate runs,
told apart by their start time.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalLog,
    EvalSampleSummary,
    read_eval_log,
    read_eval_log_sample_summaries,
)

from inspect_personamem.cost.batch import batched
from inspect_personamem.datasets.registry import VERSIONS, version_of_task
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.read.identity import (
    args_as_text,
    generation_settings,
    graded_by,
    model_identity,
)
from inspect_personamem.report.read.runs import Run, setting_defaults
from inspect_personamem.report.read.samples import (
    joined_rows,
    records_of,
    sample_result,
    unscored,
)
from inspect_personamem.report.read.tool_use import tool_use
from inspect_personamem.run.facts import FACTS
from inspect_personamem.run.migration import current_arguments
from inspect_personamem.scoring.scorer import STOPPED

SCORER = "personamem_scorer"
"""The task's scorer; a log naming another single scorer (`graded_scorer` of open
answers) uses that one."""


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
    said: dict[str, dict[str, None]] = {}  # a run's note -> the logs it is said of, once
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
            for note in _run_notes(run):
                said.setdefault(note, {})[f"{Path(run.location).name} ({run.model})"] = None
    result.notes.extend(
        f"{next(iter(where))}: {note}"
        if len(where) == 1
        else f"{len(where)} logs ({', '.join(where)}): {note}"
        for note, where in said.items()
    )
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
    metadata: dict[str, Any] = spec.metadata or {}
    facts = metadata.get(FACTS) if isinstance(metadata.get(FACTS), dict) else None
    recorded_defaults = (facts or {}).get("scoring_defaults", {})
    release = VERSIONS[benchmark].release
    defaults = setting_defaults(benchmark) | current_arguments(recorded_defaults, release)
    settings = {
        key: str(task_args[key]) if key in task_args else default
        for key, default in defaults.items()
    }
    recorded = {**task_args, **metadata}
    split = VERSIONS[benchmark].selection(recorded, spec.task)
    epochs: dict[str, list[EvalSampleSummary]] = defaultdict(list)
    errors = 0
    limits: Counter[str] = Counter()
    left_unscored: Counter[str] = Counter()
    for summary in summaries:
        if summary.error is not None:
            errors += 1
        elif summary.scores and scorer in summary.scores:
            epochs[str(summary.id)].append(summary)
            score = summary.scores[scorer]
            if not unscored(score.value):
                continue
            if summary.limit is not None or score.reason in (None, STOPPED):
                limits[summary.limit or "unknown"] += 1
            else:  # the scorer's own: a judge not built, a judgement not read
                left_unscored[str(score.reason)] += 1
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
    records = records_of(file, [s for group in epochs.values() for s in group])
    used = tuple(use for key in sorted(records) if (use := tool_use(records[key])) is not None)
    planned = len(spec.dataset.sample_ids) if spec.dataset.sample_ids else spec.dataset.samples or 0
    questions = [
        sample
        for sample_epochs in epochs.values()
        if (sample := sample_result(file, benchmark, scorer, sample_epochs, records)) is not None
    ]
    rows, parts_left = joined_rows(questions)
    answer_args = args_as_text(spec.model_args or {})
    answering = model_identity(spec.model, answer_args, spec.model_base_url)
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
        model_args=answer_args,
        base_url=spec.model_base_url,
        generate_config=generation_settings(spec.model_generate_config),
        settings=settings,
        created=datetime.fromisoformat(spec.created).astimezone(timezone.utc),
        status=header.status,
        epochs=spec.config.epochs or 1,
        reducer=", ".join(spec.config.epochs_reducer or ["mean"]),
        planned=planned,
        dataset_size=max(planned, spec.dataset.samples or 0),
        samples=rows,
        errors=errors,
        unanswered=limits.total(),
        limits=dict(limits),
        unscored=dict(left_unscored),
        questions_scored=len(questions),
        parts_left=parts_left,
        tool_use=used,
        stored_metrics=stored,
        stored_ids=stored_ids,
        data_release=str(metadata["data_release"]) if "data_release" in metadata else None,
        data_checked=data_checked(metadata),
        data_source=str(metadata["data_source"]) if "data_source" in metadata else None,
        license=str(metadata["license"]) if "license" in metadata else None,
        grader=graded_by(
            settings,
            answering,
            spec.model_roles,
            [s.scores[scorer] for group in epochs.values() for s in group if s.scores],
        ),
        batched=batched(header.plan.config),
        logged_facts=facts,
    )


def data_checked(metadata: dict[str, Any]) -> str | None:
    """The task's `data_checked` metadata, and after it the personas the run left out
    (`skipped_personas`, PersonaMem-v3's `-T skip_bad_personas=true`, each line naming
    one), so that wherever the report shows what the data were it says whose are not in."""
    checked = str(metadata["data_checked"]) if "data_checked" in metadata else None
    skipped = [str(line) for line in metadata.get("skipped_personas") or ()]
    if not skipped:
        return checked
    return f"{checked or 'unknown'}; {len(skipped)} skipped: {'; '.join(skipped)}"


def _run_notes(run: Run) -> list[str]:
    """What the notes say of a run's log, without naming it (`read_runs` names the logs
    each is said of, once for all of them)."""
    notes: list[str] = []
    if run.status != "success" or run.scored_questions < run.planned:
        notes.append(
            f"status {run.status}, {run.scored_questions} of {run.planned} questions "
            "scored; partial results are reported as such"
        )
    if run.unscored:
        reasons = ", ".join(f"{reason}: {count}" for reason, count in sorted(run.unscored.items()))
        notes.append(
            f"{run.unscored_total} sample(s) left unscored by the scorer ({reasons}); "
            "left out of the scores, never counted as 0"
        )
    if run.parts_left:
        notes.append(
            f"{len(run.parts_left)} question(s) scored as part of a row made of several "
            "(a lifecycle probe's pair) whose other part was not scored: counted nowhere, "
            "as the task's metrics leave them"
        )
    if run.errors:
        notes.append(f"{run.errors} sample(s) ended in an error and have no score")
    if run.unanswered:
        limits = ", ".join(f"{limit} limit: {count}" for limit, count in sorted(run.limits.items()))
        notes.append(
            f"{run.unanswered} sample(s) not answered: stopped by an Inspect limit "
            f"({limits}) before the model replied; left out of the scores, as Inspect's "
            "metrics leave them out"
        )
    if run.described_by:
        notes.append(f"{run.described_by}")
    if run.epochs > 1:
        notes.append(f"{run.epochs} epochs; each question counts once, with its mean over epochs")
    return notes
