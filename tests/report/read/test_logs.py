"""PersonaMem runs read out of Inspect logs (`report/read/logs.py`): which files are
logs and which logs are PersonaMem runs, how a log's arguments become a run's settings
(version 1's `method=` too), what is counted rather than scored, and each grading of a
log's replies read as a run of its own."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from support.helpers import mock_model
from support.reports import (
    QUESTIONS,
    Logs,
    close,
    hashed_answer,
    mean,
    read_csv,
    run,
)

from inspect_personamem.report import build_report
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.read.logs import gradings, log_files, read_runs


def test_reads_every_run_and_skips_other_tasks(logs: Logs) -> None:
    result = read_runs([logs.folder])
    assert len(result.runs) == 5
    assert any("other_task" in note and "not PersonaMem" in note for note in result.notes)
    by_status = sorted(run.status for run in result.runs)
    assert by_status == ["error", "success", "success", "success", "success"]
    interrupted = next(run for run in result.runs if run.status == "error")
    assert 0 < len(interrupted.samples) < interrupted.planned == QUESTIONS
    assert interrupted.stored_metrics is None
    assert {run.settings["history"] for run in result.runs} == {"full", "none"}
    assert {run.settings["answer"] for run in result.runs} == {"choice"}
    assert {run.split for run in result.runs} == {"128k"}
    assert any("2 epochs" in note and "mean over epochs" in note for note in result.notes)
    assert any("ended in an error" in note for note in result.notes)


def test_a_log_whose_samples_cannot_be_read_is_skipped_with_a_note(
    logs: Logs, tmp_path: Path
) -> None:
    log = read_eval_log(logs.locations["a_full"])
    for sample in log.samples or []:
        sample.metadata.pop("category")
    write_eval_log(log, str(tmp_path / "old.json"))
    result = read_runs([tmp_path / "old.json", logs.locations["a_none"]])
    assert len(result.runs) == 1
    assert any(
        "old.json: its samples cannot be read" in note and "category" in note
        for note in result.notes
    )


def test_how_a_run_answered_is_a_setting_and_version_1_methods_are_read(
    logs: Logs, tmp_path: Path
) -> None:
    """`answer` tells runs apart; a log of task version 1 (`method=...`) is read in
    today's terms (`method=rag` is `history=rag`, `method=logprob` is `answer=logprob`)."""
    log = read_eval_log(logs.locations["a_full"], header_only=True)
    log.eval.task_args["answer"] = "logprob"
    write_eval_log(log, str(tmp_path / "logprob.json"))
    del log.eval.task_args["answer"]
    log.eval.task_args.update(method="rag", retriever="bm25")
    write_eval_log(log, str(tmp_path / "version_1.json"))
    paths: list[str | Path] = [
        logs.locations["a_full"], tmp_path / "logprob.json", tmp_path / "version_1.json",
    ]  # fmt: skip
    runs = read_runs(paths).runs
    assert [(run.settings["history"], run.settings["answer"]) for run in runs] == [
        ("full", "choice"), ("full", "logprob"), ("rag", "choice"),
    ]  # fmt: skip
    assert "method" not in runs[2].settings and len({run.key for run in runs}) == 3
    assert run_labels(runs) == [
        "mockllm/model-a, full history",
        "mockllm/model-a, full history, logprob",
        "mockllm/model-a, rag (bm25, top 5)",
    ]


def test_json_logs_in_a_folder_are_read_whatever_their_name(logs: Logs, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    write_eval_log(read_eval_log(logs.locations["a_none"]), str(folder / "sub" / "renamed.json"))
    shutil.copy(logs.locations["a_full"], folder / "a_full.eval")
    (folder / "settings.json").write_text('{"not": "a log"}', encoding="utf-8")
    result = read_runs([folder])
    assert sorted(Path(run.location).name for run in result.runs) == ["a_full.eval", "renamed.json"]
    assert any("settings.json: not a readable Inspect log" in note for note in result.notes)


def test_samples_stopped_by_a_limit_are_counted_not_scored(logs: Logs, tmp_path: Path) -> None:
    """A message limit below some histories' length stops those samples before the
    model is called: the report counts them, skips them as Inspect's metrics do, and
    its recomputation still matches what Inspect stored."""
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    log = read_eval_log(run(model, tmp_path / "logs", logs.data, message_limit=16))
    stopped = [s.limit.type for s in log.samples or [] if s.limit is not None]
    assert 0 < len(stopped) < QUESTIONS and set(stopped) == {"message"}
    assert log.results is not None and log.results.scores[0].unscored_samples == len(stopped)
    answered = [s for s in log.samples or [] if s.limit is None]
    accuracy = mean(
        [1.0 if s.scores and s.scores["personamem_scorer"].value == "C" else 0.0 for s in answered]
    )

    report = build_report([tmp_path / "logs"], tmp_path / "out")
    [summary] = report.summaries
    assert (summary.run.unanswered, summary.run.limits) == (len(stopped), {"message": len(stopped)})
    assert not summary.run.complete
    assert report.headline == (
        f"{summary.label}: {len(stopped)} of {QUESTIONS} questions unscored "
        "(stopped by an Inspect limit)"
    )
    assert close(str(summary.overall.accuracy), accuracy)
    [row] = read_csv(tmp_path / "out", "overall")
    assert row["unscored samples"] == str(len(stopped))
    assert row["questions scored"] == str(len(answered))
    assert row["check against Inspect"].startswith("matches (")
    assert f"{summary.label}: matches Inspect" in "\n".join(report.notes)
    assert any(
        f"{len(stopped)} sample(s) not answered: stopped by an Inspect limit "
        f"(message limit: {len(stopped)})" in note
        for note in report.notes
    )


def test_log_files_are_every_eval_and_json_file_oldest_first_hidden_folders_aside(
    tmp_path: Path,
) -> None:
    """A folder is searched recursively for `.eval` and `.json` files, oldest first
    (by modification time), leaving out hidden folders and other suffixes; a file named
    is taken as it is, whatever its suffix; a path that does not exist is refused."""
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    (folder / ".hidden").mkdir()
    files = {
        "new.eval": 300, "sub/old.json": 100, "middle.eval": 200, ".hidden/x.eval": 50,
        "notes.txt": 10,
    }  # fmt: skip
    for name, mtime in files.items():
        (folder / name).write_text("", encoding="utf-8")
        os.utime(folder / name, (mtime, mtime))
    named = tmp_path / "named.log"
    named.write_text("", encoding="utf-8")
    assert log_files([folder, named]) == [
        str(folder / "sub" / "old.json"),
        str(folder / "middle.eval"),
        str(folder / "new.eval"),
        str(named),
    ]
    with pytest.raises(ReportError, match="missing: no such log file or folder"):
        log_files([tmp_path / "missing"])


def test_each_grading_appended_to_a_log_is_read_as_a_run_of_its_own(logs: Logs) -> None:
    """The task's scorer first, then each score `inspect score --action append` wrote
    beside it (the scorer's name and a number); a score of another name is not one; a
    log whose scorer is not the task's reads by its first."""
    header = read_eval_log(logs.locations["a_full"], header_only=True)
    assert gradings(header) == ["personamem_scorer"]
    assert header.results is not None
    [score] = header.results.scores
    header.results.scores += [
        score.model_copy(update={"name": name})
        for name in ("personamem_scorer2", "other_scorer1", "personamem_scorer_x")
    ]
    assert gradings(header) == ["personamem_scorer", "personamem_scorer2"]
    assert header.eval.scorers is not None
    header.eval.scorers = [
        s.model_copy(update={"name": "graded_scorer"}) for s in header.eval.scorers
    ]
    header.results.scores = [score.model_copy(update={"name": "graded_scorer1"})]
    assert gradings(header) == ["graded_scorer", "graded_scorer1"]
