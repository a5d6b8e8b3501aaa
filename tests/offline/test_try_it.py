"""`inspect-personamem try` on PersonaMem: the offline try-it path, end to end."""

from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from support.doc_commands import pip_stand_in, printed
from support.helpers import REAL_QUESTIONS, ROOT, offline_env, require

from inspect_personamem.cli import main
from inspect_personamem.offline.try_it import RUNS

CLI = Path(sys.executable).parent / "inspect-personamem"
GENERATOR = "inspect_personamem.datasets.v1.generator"


def accuracy(log: EvalLog) -> float:
    assert log.results is not None
    return float(log.results.scores[0].metrics["accuracy"].value)


def test_the_readme_and_the_offline_recipes_count_the_runs_try_makes() -> None:
    """One run for each of `RUNS` and one re-grading, which the report counts as a run
    ("All 8 runs complete"): the number the README and docs/offline.md write out."""
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    for doc in (ROOT / "README.md", ROOT / "docs" / "offline.md"):
        said = re.findall(r"makes (\w+) runs", doc.read_text(encoding="utf-8"))
        assert said == [words[len(RUNS) + 1]], doc


def run_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), "try", *args],
        env=offline_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


def run_printed(tmp_path: Path, command: str) -> subprocess.CompletedProcess[str]:
    """A command as the docs print it, run by bash in `tmp_path`, offline, the
    environment's `inspect-personamem` first on PATH after the `pip install` stand-in."""
    env = offline_env(tmp_path)
    first = (pip_stand_in(tmp_path), CLI.parent, env["PATH"])
    return subprocess.run(
        ["bash", "-e", "-c", command],
        env={**env, "PATH": os.pathsep.join(str(p) for p in first)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.report
def test_try_command_runs_offline_and_writes_the_report(tmp_path: Path) -> None:
    """The README's command (and docs/offline.md's) as printed."""
    done = run_printed(tmp_path, printed('pip install -e ".[report]" && inspect-personamem try'))
    assert done.returncode == 0, done.stderr
    out = tmp_path / "personamem-try"
    logs = [read_eval_log(info) for info in list_eval_logs(str(out / "logs"))]
    # the open full-history run graded again by the oracle naming the first candidate
    [regraded] = [log for log in logs if log.location.endswith("-regraded.eval")]
    logs.remove(regraded)
    runs = {
        (str(log.eval.task_args["answer"]), str(log.eval.task_args["history"])): log for log in logs
    }
    assert set(runs) == {(a, h) for a in ("choice", "open") for h in ("full", "none")} | {
        ("choice", "evidence"),
        ("choice", "rag"),
        ("choice", "tools"),
    }
    histories = {history: runs["choice", history] for history in ("full", "none", "evidence")}
    assert all(log.status == "success" and log.eval.model == "personamem/oracle" for log in logs)
    graded = runs["open", "full"]  # the oracle as model and grader
    assert graded.eval.model_roles is not None and "grader" in graded.eval.model_roles
    assert accuracy(graded) > accuracy(runs["open", "none"])
    # logged absolute (--out is relative here): a retry from another folder finds the files
    assert {log.eval.model_args["questions"] for log in logs} == {
        str(out / "data" / "questions_32k.csv")
    }
    assert {log.eval.task_args["data_dir"] for log in logs} == {str(out / "data")}
    assert accuracy(histories["full"]) > accuracy(histories["none"])
    assert accuracy(histories["evidence"]) > accuracy(histories["none"])
    # the retrieval run needs no model: BM25 finds the generated evidence
    retrieved = runs["choice", "rag"]
    assert retrieved.eval.task_args["retriever"] == "bm25"
    assert retrieved.results is not None
    assert retrieved.results.scores[0].metrics["evidence_found"].value > 0.5
    # the oracle searched and read the history through tools, then answered with it
    searched = runs["choice", "tools"]
    assert searched.results is not None
    assert searched.results.scores[0].metrics["tool_calls"].value == 2
    assert accuracy(searched) > accuracy(histories["none"])
    assert regraded.eval.eval_id == graded.eval.eval_id  # the same replies
    for sample in regraded.samples or []:
        assert sample.scores is not None
        record = (sample.scores["graded_scorer"].metadata or {})["grader_model"]
        assert record["args"] == {"grading": "first"}
    assert accuracy(regraded) < accuracy(graded)
    with (out / "report" / "tables" / "grader_agreement.csv").open(encoding="utf-8") as file:
        [agreement] = list(csv.DictReader(file))
    assert "graded by personamem/oracle (grading=first)" in agreement["other grading"]
    assert float(agreement["agreement"]) < 1.0
    assert (out / "report" / "index.html").is_file()
    assert (out / "report" / "tables" / "gain.md").is_file()
    assert f"answer=choice, history=full: accuracy {accuracy(histories['full']):.3f}" in done.stdout
    assert (
        "answer=open, history=full, re-graded by personamem/oracle -M grading=first (names "
        f"the first candidate shown): accuracy {accuracy(regraded):.3f}"
    ) in done.stdout
    # synthetic data: every run complete, and not comparable with published numbers
    [said] = [line for line in done.stdout.splitlines() if line.startswith("report says: ")]
    assert said.startswith(
        "report says: All 8 runs complete; not comparable with published numbers: "
    )
    again = run_cli(tmp_path)
    assert again.returncode == 2
    assert "already holds logs" in again.stderr
    assert "Traceback" not in again.stderr


@pytest.mark.slow
@pytest.mark.report
def test_try_command_asks_the_real_questions(tmp_path: Path) -> None:
    """docs/offline.md's command as printed, in a folder holding the real question file."""
    real = require(REAL_QUESTIONS)
    shutil.copy(real, tmp_path / "questions_32k.csv")
    command = printed("inspect-personamem try --questions questions_32k.csv --limit 60")
    done = run_printed(tmp_path, command)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "personamem-try"
    copied = out / "data" / "questions_32k.csv"
    assert copied.read_bytes() == real.read_bytes()
    logs = [read_eval_log(info) for info in list_eval_logs(str(out / "logs"))]
    limit = int(command.split("--limit ")[1])
    assert [len(log.samples or []) for log in logs] == [limit] * 8  # the re-graded run too
    # the runs that read the generated histories are on synthetic data; those that read
    # the real question file alone are not
    releases = {
        str(log.eval.task_args["history"]): (log.eval.metadata or {})["data_release"]
        for log in logs
    }  # the re-grade keeps its run's header
    generated = "synthetic: shared_contexts_32k.jsonl written by " + GENERATOR
    assert releases == {
        "full": generated,
        "evidence": generated,
        "rag": generated,
        "tools": generated,
        "none": "released",
    }
    # the histories fit the real rows: each question's real distance is located
    [evidence] = [log for log in logs if log.eval.task_args["history"] == "evidence"]
    assert all(sample.metadata["evidence"]["located"] for sample in evidence.samples or [])
    assert "(real questions, generated histories: " in done.stdout


def test_try_command_names_a_faulty_question_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In-process (the command's own process is run by the slow tests above)."""
    broken = tmp_path / "questions_32k.csv"
    broken.write_text("question_id,user_question_or_message\nq1,hello\n", encoding="utf-8")
    for name, value in offline_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    assert main(["try", "--questions", str(broken)]) == 2
    printed = capsys.readouterr()
    assert f"{broken}: missing columns" in printed.err
    assert "Traceback" not in printed.err
    assert not (tmp_path / "personamem-try" / "logs").exists()


@pytest.mark.slow
@pytest.mark.parametrize("when", ["loading", "running"])
def test_try_command_stopped_with_ctrl_c_says_so(tmp_path: Path, when: str) -> None:
    """A Ctrl-C as the first run starts (Inspect loading the task, before its own
    handling of interrupts begins) or once its log is being written: the same message
    and exit status."""
    process = subprocess.Popen(
        [str(CLI), "try", "--questions-count", "3000"],
        env=offline_env(tmp_path),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith("data: ")  # the split is written
    if when == "running":  # wait until the run has begun its log (3000 questions: not done)
        logs = tmp_path / "personamem-try" / "logs"
        deadline = time.monotonic() + 120
        while not list(logs.glob("*.eval")) and process.poll() is None:
            assert time.monotonic() < deadline, "the run wrote no log"
            time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "answer=choice, history=full: interrupted" in out
    assert "Traceback" not in err
