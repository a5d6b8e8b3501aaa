"""The runs read out of Inspect logs (`report/read/`): which logs are PersonaMem runs,
what a run and its questions hold, and what is counted rather than scored."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log
from support.helpers import mock_model
from support.reports import (
    QUESTIONS,
    Logs,
    MethodLogs,
    close,
    hashed_answer,
    mean,
    read_csv,
    run,
)

from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.report import build_report
from inspect_personamem.report.labels import run_labels
from inspect_personamem.report.read.logs import read_runs


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
        f"Incomplete runs: {summary.label} ({len(answered)} of {QUESTIONS} scored, "
        f"{len(stopped)} not answered: stopped by an Inspect limit)"
    )
    assert close(str(summary.overall.accuracy), accuracy)
    [row] = read_csv(tmp_path / "out", "overall")
    assert row["unanswered samples"] == str(len(stopped))
    assert row["questions scored"] == str(len(answered))
    assert row["check against Inspect"].startswith("matches (")
    assert f"{summary.label}: matches Inspect" in "\n".join(report.notes)
    assert any(
        f"{len(stopped)} sample(s) not answered: stopped by an Inspect limit "
        f"(message limit: {len(stopped)})" in note
        for note in report.notes
    )


def test_a_memory_systems_own_tokens_are_read_from_its_samples(
    method_logs: MethodLogs, tmp_path: Path
) -> None:
    """The memory run with what a memory system reports per question grafted in (LLM
    and embedder tokens, and a count that is not tokens); the mock model has no price."""
    log = read_eval_log(method_logs.memory)
    for sample in log.samples or []:
        sample.metadata["memory"]["memory_usage"] = {
            "llm_input_tokens": 7, "llm_output_tokens": 2, "embedding_input_tokens": 3,
            "llm_calls": 5,
        }  # fmt: skip
    write_eval_log(log, str(tmp_path / "memory.json"))
    build_report([tmp_path / "memory.json"], tmp_path / "out")
    [row] = read_csv(tmp_path / "out", "cost")
    assert (row["memory input tokens"], row["memory output tokens"]) == ("10.0", "2.0")
    assert row["USD"] == row["USD per point"] == ""


def test_a_log_made_before_the_repository_was_renamed_reads_as_before(
    logs: Logs, tmp_path: Path
) -> None:
    """A log of task version 2.2.0: the repository's former name at its former pin, on
    the released data as the task recorded it. Its repository is read by its current
    name (a setting like today's runs'), its pin as it was, its data as released."""
    log = read_eval_log(logs.locations["a_full"], header_only=True)
    former, pin = "bowen-upenn/PersonaMem", "2d676b2aeeddd1ee2ff4ff611bf867fcb2261d6e"
    log.eval.task_args.update(repo_id=former, revision=pin)
    log.eval.metadata = {
        **(log.eval.metadata or {}),
        "data_source": f"hf://datasets/{former}@{pin}",
        "data_release": "released",
    }
    write_eval_log(log, str(tmp_path / "old.json"))
    [old] = read_runs([tmp_path / "old.json"]).runs
    assert (old.settings["repo_id"], old.settings["revision"]) == (PERSONAMEM.repo_id, pin)
    assert old.data_release == "released" and not old.unreleased and not old.marks


def test_how_a_run_ran_is_read_from_its_log_and_an_older_log_is_said_to_predate_it(
    logs: Logs, tmp_path: Path
) -> None:
    """What the task wrote into the log of how it ran (`run/facts.py`) describes the run,
    not the installed package's axis tables: a later package reads an earlier run as it
    ran. A log made before tasks wrote it is described by the installed package, and a
    note says so."""
    log = read_eval_log(logs.locations["a_full"])
    assert log.eval.metadata is not None
    facts = log.eval.metadata["facts"]
    assert (facts["upper_bound"], facts["scored_as"], facts["judged"]) == (False, "chosen", False)
    assert facts["scoring_defaults"]["history"] == "full"
    log.eval.metadata["facts"] = {
        **facts,
        "upper_bound": True,
        "scored_as": "judged",
        "judged": True,
        "scoring_defaults": {**facts["scoring_defaults"], "history": "none"},
        "evidence_rule": "a rule since changed",
    }
    write_eval_log(log, str(tmp_path / "later.eval"))
    del log.eval.metadata["facts"]
    write_eval_log(log, str(tmp_path / "older.eval"))
    [later] = read_runs([tmp_path / "later.eval"]).runs
    assert later.upper_bound and later.judged and later.scored_as == "judged"
    assert later.settings["history"] == "full" and "history=full" in later.changed_settings
    assert later.evidence_located_by == "a rule since changed" and not later.described_by
    older_read = read_runs([tmp_path / "older.eval"])
    [older] = older_read.runs
    assert not older.upper_bound and not older.judged and older.scored_as == "chosen"
    assert "history=full" not in older.changed_settings
    assert older.prompts == facts["prompts"]  # today's package sends the same texts
    assert older.evidence_located_by == facts["evidence_rule"]
    assert older.described_by.startswith("described by the installed package, version ")
    assert f"older.eval (mockllm/model-a): {older.described_by}" in older_read.notes
