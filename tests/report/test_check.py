"""The recomputed numbers against the metrics Inspect stored (`report/check.py`): like
with like for interrupted runs, text metadata as the summaries keep it."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log
from support.helpers import mock_model
from support.reports import (
    CTRL_C,
    QUESTIONS,
    ROOT,
    Logs,
    cancelled_log,
    hashed_answer,
    read_csv,
    run,
    values_in,
)

from inspect_personamem.datasets.v1.generator import generate_split, write_questions
from inspect_personamem.report import build_report


def test_check_flags_stored_metrics_that_do_not_match(logs: Logs, tmp_path: Path) -> None:
    log = read_eval_log(logs.locations["a_none"])
    assert log.results is not None
    log.results.scores[0].metrics["accuracy"].value += 0.1
    write_eval_log(log, str(tmp_path / "edited.json"))
    report = build_report([tmp_path / "edited.json"], tmp_path / "out")
    assert any("MISMATCH in 1 of" in note and "accuracy stored" in note for note in report.notes)


def test_a_cancelled_run_is_checked_over_the_questions_its_metrics_cover(
    logs: Logs, tmp_path: Path
) -> None:
    log = cancelled_log(logs, tmp_path)
    write_eval_log(log, str(tmp_path / "cancelled.eval"))
    report = build_report([tmp_path / "cancelled.eval"], tmp_path / "out")
    [summary] = report.summaries
    assert summary.run.status == "cancelled" and summary.overall.n == QUESTIONS
    [note] = [n for n in report.notes if "Inspect" in n and "questions" in n]
    assert "MISMATCH" not in note
    assert "matches Inspect" in note
    assert "over the 10 questions Inspect's stored metrics cover (run cancelled)" in note
    assert f"over all {QUESTIONS} scored questions" in note
    [row] = read_csv(tmp_path / "out", "overall")
    assert (
        row["check against Inspect"].startswith("matches (")
        and "partial" in row["check against Inspect"]
    )
    # the stored metrics are over fewer questions than the report's numbers
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value != float(row["accuracy"])


def test_a_cancelled_run_without_reductions_is_not_compared(logs: Logs, tmp_path: Path) -> None:
    log = cancelled_log(logs, tmp_path)
    log.reductions = None
    write_eval_log(log, str(tmp_path / "cancelled.eval"))
    report = build_report([tmp_path / "cancelled.eval"], tmp_path / "out")
    assert not any("MISMATCH" in note for note in report.notes)
    assert any(
        "not compared: run cancelled" in note
        and f"recomputed over all {QUESTIONS} scored questions" in note
        for note in report.notes
    )
    [row] = read_csv(tmp_path / "out", "overall")
    assert row["check against Inspect"] == "not compared (see notes)"


def test_a_run_stopped_with_ctrl_c_is_checked_like_with_like(logs: Logs, tmp_path: Path) -> None:
    script = CTRL_C.format(tests=str(ROOT / "tests"), data=str(logs.data), logs=str(tmp_path))
    subprocess.run([sys.executable, "-c", script], check=False, timeout=300)
    report = build_report([tmp_path], tmp_path / "out")
    [summary] = report.summaries
    assert summary.run.status == "cancelled"
    assert 0 < summary.overall.n < QUESTIONS
    assert summary.run.stored_ids is not None
    assert not any("MISMATCH" in note for note in report.notes)
    assert any(note.startswith(f"{summary.label}: matches Inspect") for note in report.notes)
    assert any("status cancelled" in note and "partial" in note for note in report.notes)


def test_topics_with_line_breaks_and_long_topics_match_inspect(tmp_path: Path) -> None:
    """Sample summaries collapse a topic's whitespace (CR/LF too) and shorten it past
    1024 characters; the metric names Inspect stored keep it whole. The check compares
    the two as Inspect stores them: a match, not a false MISMATCH."""
    questions, _ = generate_split(
        tmp_path / "data", "128k", contexts=2, min_messages=8, max_messages=12, questions=8
    )
    with questions.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    long_topic = " ".join(["preferences"] * 120)
    odd = {rows[0]["topic"]: "travel\r\nPlanning", rows[1]["topic"]: long_topic}
    for row in rows:
        row["topic"] = odd.get(row["topic"], row["topic"])
    write_questions(questions, rows)
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    log = read_eval_log(run(model, tmp_path / "logs", tmp_path / "data"))
    assert log.results is not None
    assert "topic_travel\r\nPlanning" in log.results.scores[0].metrics
    report = build_report([tmp_path / "logs"], tmp_path / "out")
    [summary] = report.summaries
    assert not any("MISMATCH" in note for note in report.notes)
    assert f"{summary.label}: matches Inspect" in "\n".join(report.notes)
    topics = values_in(tmp_path / "out", "topics")
    # whole words, as many as fit 1024 characters with the "..."
    assert {"travel Planning", " ".join(["preferences"] * 85) + "..."} <= topics


def test_a_log_written_before_the_interval_and_the_ago_names_still_matches(
    logs: Logs, tmp_path: Path
) -> None:
    log = read_eval_log(logs.locations["a_none"])
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    ci_low = metrics["ci_low"].value
    renamed = {
        name.removesuffix("_ago") if name.startswith("sessions") else name: metric
        for name, metric in metrics.items()
        if name not in ("ci_low", "ci_high")
    }
    assert any(name.startswith("sessions_") and name[-1].isdigit() for name in renamed)
    log.results.scores[0].metrics = renamed
    write_eval_log(log, str(tmp_path / "older.json"))
    report = build_report([tmp_path / "older.json"], tmp_path / "out")
    [note] = [n for n in report.notes if "Inspect" in n and "metrics" in n]
    assert "matches Inspect" in note and "MISMATCH" not in note
    # and the report's interval is the one a newer log holds
    [summary] = report.summaries
    assert summary.overall.low == ci_low


def test_a_stored_interval_that_differs_is_flagged(logs: Logs, tmp_path: Path) -> None:
    log = read_eval_log(logs.locations["a_none"])
    assert log.results is not None
    log.results.scores[0].metrics["ci_high"].value -= 0.05
    write_eval_log(log, str(tmp_path / "edited.json"))
    report = build_report([tmp_path / "edited.json"], tmp_path / "out")
    assert any("MISMATCH in 1 of" in note and "ci_high stored" in note for note in report.notes)
