"""`inspect-personamem try --dataset v2`: a synthetic PersonaMem-v2 subset, the seven
runs on `personamem/oracle` (in-process, offline), then the report."""

from __future__ import annotations

import re
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from support.helpers import offline_env

from inspect_personamem.cli import main
from inspect_personamem.datasets.v2.trial import try_shape

QUESTIONS = 20


@dataclass(frozen=True)
class Tried:
    """What one `try --dataset v2` left: its exit status, what it printed, its folder,
    its logs by (answer, history) and the open full-history run's re-grade."""

    code: int
    out: str
    err: str
    folder: Path
    runs: dict[tuple[str, str], EvalLog]
    regraded: EvalLog


def try_it(folder: Path, *args: str) -> tuple[int, str, str]:
    """`inspect-personamem try` in-process, offline (web requests go to a closed port):
    its exit status, stdout and stderr."""
    out, err = StringIO(), StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        for name, value in offline_env(folder.parent).items():
            patch.setenv(name, value)
        code = main(["try", "--dataset", "v2", "--out", str(folder), *args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def tried(tmp_path_factory: pytest.TempPathFactory) -> Tried:
    folder = tmp_path_factory.mktemp("try") / "out"
    code, out, err = try_it(folder, "--questions-count", str(QUESTIONS))
    logs = [read_eval_log(info) for info in list_eval_logs(str(folder / "logs"))]
    [regraded] = [log for log in logs if log.location.endswith("-regraded.eval")]
    logs.remove(regraded)
    runs = {
        (str(log.eval.task_args["answer"]), str(log.eval.task_args["history"])): log for log in logs
    }
    assert len(runs) == len(logs)
    return Tried(code, out, err, folder, runs, regraded)


def accuracy(log: EvalLog) -> float:
    assert log.results is not None
    return float(log.results.scores[0].metrics["accuracy"].value)


@pytest.mark.slow  # seven runs; as v1's `try` (offline/test_try_it.py), end to end
def test_it_makes_the_seven_runs_on_the_oracle(tried: Tried) -> None:
    assert set(tried.runs) == {(a, h) for a in ("choice", "open") for h in ("full", "none")} | {
        ("choice", "evidence"),
        ("choice", "rag"),
        ("choice", "tools"),
    }
    data = tried.folder / "data"
    for (answer, history), log in tried.runs.items():
        assert log.status == "success", log.error
        assert log.eval.task == "inspect_personamem/personamem_v2_32k"
        assert log.eval.model == "personamem/oracle"
        assert log.eval.task_args["data_dir"] == str(data)
        assert log.eval.model_args["questions"] == str(data / "benchmark/text/benchmark.csv")
        assert len(log.samples or []) == QUESTIONS
        retriever = ", retriever=bm25" if history == "rag" else ""
        said = f"answer={answer}, history={history}{retriever}: accuracy {accuracy(log):.3f}"
        assert f"{said} (log: " in tried.out
    for answer in ("choice", "open"):  # accuracy 0.8 with the history, 0.4 without
        full, none = accuracy(tried.runs[answer, "full"]), accuracy(tried.runs[answer, "none"])
        assert full > 0.6 and none < 0.55, (answer, full, none)
    assert accuracy(tried.runs["choice", "evidence"]) > 0.6  # the evidence is a history
    assert accuracy(tried.runs["choice", "tools"]) > 0.6  # it read the history through tools


@pytest.mark.slow
def test_chosen_answers_are_read_by_the_authors_rule(tried: Tried) -> None:
    for history in ("full", "none"):
        for sample in tried.runs["choice", history].samples or []:
            assert re.fullmatch("Final Answer: [A-D]", sample.output.completion)
            (score,) = (sample.scores or {}).values()
            assert score.metadata is not None and score.metadata["status"] == "single"


@pytest.mark.slow
def test_open_answers_are_graded_by_the_oracle(tried: Tried) -> None:
    for history in ("full", "none"):
        log = tried.runs["open", history]
        grader = (log.eval.model_roles or {})["grader"]
        assert not isinstance(grader, list) and grader.model == "personamem/oracle"
        for sample in log.samples or []:
            (score,) = (sample.scores or {}).values()
            assert score.metadata is not None and score.metadata["status"] == "named"
            right = sample.output.completion == sample.metadata["correct_answer"]
            assert score.value == ("C" if right else "I")


@pytest.mark.slow
@pytest.mark.report
def test_it_writes_the_report_of_the_seven_v2_runs_and_the_regrade(tried: Tried) -> None:
    assert tried.code == 0, tried.err
    assert (tried.folder / "report" / "index.html").is_file()
    tables = tried.folder / "report" / "tables"
    rows = (tables / "v2_overall.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) == 8 and all("personamem/oracle" in row for row in rows)
    assert tried.regraded.eval.eval_id == tried.runs["open", "full"].eval.eval_id
    [agreement] = (tables / "v2_grader_agreement.csv").read_text().splitlines()[1:]
    assert "graded by personamem/oracle (grading=first)" in agreement
    assert not (tables / "overall.csv").exists()  # no v1 run, no v1 table


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["--split", "32k"], "--split"),
        (["--questions", "questions_32k.csv"], "--questions"),
        (["--split", "128k", "--questions", "q.csv"], "--questions and --split"),
    ],
)
def test_the_v1_options_are_refused_in_one_line(
    tmp_path: Path, given: list[str], named: str
) -> None:
    code, out, err = try_it(tmp_path / "out", *given)
    assert code == 2 and out == ""
    assert err == (
        "inspect-personamem try: --dataset v2 writes a synthetic PersonaMem-v2 subset: "
        f"leave out {named}, which choose PersonaMem (v1) data\n"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("count", "personas", "each"), [(60, 6, 10), (25, 3, 9), (4, 1, 4)])
def test_the_question_count_is_spread_over_personas_of_at_most_ten(
    count: int, personas: int, each: int
) -> None:
    shape = try_shape(count)
    assert (shape.personas, shape.min_questions, shape.max_questions) == (personas, each, each)
