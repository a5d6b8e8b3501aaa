"""`personamem/oracle` on PersonaMem: right with the chosen probability, its arguments
checked, and a question file or question it cannot find named; on both versions'
evidence alone (`history=evidence`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model
from support.helpers import DISPLAY

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.offline.oracle import OracleModel
from inspect_personamem.scoring.grader.prompt import grader_prompt


def oracle_run(data: Path, log_dir: Path, **model_args: object) -> EvalLog:
    """One 32k run on `data` with the oracle, task arguments from `task_`-prefixed keys."""
    task_args = {k[5:]: v for k, v in model_args.items() if k.startswith("task_")}
    args = {k: v for k, v in model_args.items() if not k.startswith("task_")}
    (log,) = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data), **task_args},
        model="personamem/oracle",
        model_args={"questions": str(data / "questions_32k.csv"), **args},
        log_dir=str(log_dir),
        display=DISPLAY,
    )
    assert log.status == "success", log.error
    return log


def accuracy(log: EvalLog) -> float:
    assert log.results is not None
    return float(log.results.scores[0].metrics["accuracy"].value)


def sure_oracle_run(
    task: str, folder: Path, questions: str, log_dir: Path, task_args: dict[str, Any],
    **eval_args: Any,
) -> EvalLog:  # fmt: skip
    """A run of `task` on the oracle, always right with a history, never without one."""
    (log,) = inspect_eval(
        f"inspect_personamem/{task}",
        task_args={"data_dir": str(folder), **task_args},
        model="personamem/oracle",
        model_args={
            "questions": str(folder / questions),
            "accuracy": 1.0,
            "accuracy_without_history": 0.0,
        },
        log_dir=str(log_dir),
        display=DISPLAY,
        **eval_args,
    )
    return log


@pytest.mark.parametrize(("chance", "expected"), [(1.0, 1.0), (0.0, 0.0)])
@pytest.mark.slow  # an end-to-end run
def test_oracle_answers_right_with_the_chosen_probability(
    small_split: Path, tmp_path: Path, chance: float, expected: float
) -> None:
    log = oracle_run(small_split, tmp_path, accuracy=chance, task_shuffle=7)
    assert accuracy(log) == expected


@pytest.mark.parametrize(
    ("task", "data", "questions"),
    [
        ("personamem_32k", "small_split", "questions_32k.csv"),
        ("personamem_v2_32k", "small_v2", "benchmark/text/benchmark.csv"),
    ],
)
@pytest.mark.slow  # an end-to-end run
def test_oracle_runs_and_scores_the_evidence_alone_on_both_versions(
    task: str, data: str, questions: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """`history=evidence`: the evidence is a history before the question, so the oracle
    answers with its chance with a history (1.0 here; 0.0 without one)."""
    folder = Path(request.getfixturevalue(data))
    log = sure_oracle_run(task, folder, questions, tmp_path, {"history": "evidence"})
    assert log.status == "success", log.error
    assert log.samples and all(s.metadata["evidence"]["located"] for s in log.samples)
    assert accuracy(log) == 1.0


@pytest.mark.parametrize("answer", ["choice", "open"])
@pytest.mark.parametrize(
    ("task", "data", "questions"),
    [
        ("personamem_32k", "small_split", "questions_32k.csv"),
        ("personamem_v2_32k", "small_v2", "benchmark/text/benchmark.csv"),
    ],
)
@pytest.mark.slow  # an end-to-end run
def test_oracle_searches_reads_then_answers_with_history_tools(
    task: str, data: str, questions: str, answer: str, tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:  # fmt: skip
    """`history=tools`: it searches with the question, reads what the search showed,
    and answers with its chance with a history (1.0 here; 0.0 without one)."""
    folder = Path(request.getfixturevalue(data))
    task_args = {"history": "tools", "answer": answer}
    task_args |= {"grader": "self"} if answer == "open" else {}
    log = sure_oracle_run(task, folder, questions, tmp_path, task_args, limit=6)
    assert log.status == "success", log.error
    assert accuracy(log) == 1.0
    for sample in log.samples or []:
        calls = sample.metadata["tools"]["calls"]
        assert [call["tool"] for call in calls] == ["search_history", "read_history"]
        found = calls[0]["positions"]
        assert calls[1]["arguments"] == {"first": min(found), "last": max(found)}
        assert calls[1]["error"] is None and sample.metadata["tools"]["finished"]


@pytest.mark.slow  # four runs of the split
def test_oracle_is_better_with_history_and_repeatable(small_split: Path, tmp_path: Path) -> None:
    full = oracle_run(small_split, tmp_path / "a", accuracy=0.9, accuracy_without_history=0.1)
    none = oracle_run(
        small_split, tmp_path / "b", accuracy=0.9, accuracy_without_history=0.1, task_history="none"
    )
    again = oracle_run(small_split, tmp_path / "c", accuracy=0.9, accuracy_without_history=0.1)
    assert accuracy(full) > 0.6 > 0.4 > accuracy(none)
    assert accuracy(again) == accuracy(full)


def test_oracle_arguments_are_checked(small_split: Path) -> None:
    questions = str(small_split / "questions_32k.csv")
    grader_only = OracleModel("oracle")  # a grader needs no question file; a model does
    with pytest.raises(PersonaMemArgumentError, match="-M questions=PATH"):
        asyncio.run(
            grader_only.generate([ChatMessageUser(content="Hi")], [], "none", GenerateConfig())
        )
    with pytest.raises(PersonaMemArgumentError, match="unknown model argument.*accuracyy"):
        OracleModel("oracle", questions=questions, accuracyy=0.5)
    with pytest.raises(PersonaMemArgumentError, match="accuracy must be within"):
        OracleModel("oracle", questions=questions, accuracy=1.5)
    with pytest.raises(PersonaMemArgumentError, match="grading='longest': choose one of right"):
        OracleModel("oracle", grading="longest")
    renamed = small_split / "mine.csv"
    renamed.write_bytes((small_split / "questions_32k.csv").read_bytes())
    with pytest.raises(PersonaMemArgumentError, match="-M split="):
        OracleModel("oracle", questions=str(renamed))


@pytest.mark.parametrize(("grading", "verdicts"), [("right", ["2", "none"]), ("first", ["1", "1"])])
def test_oracle_as_a_grader_gives_the_right_verdict_or_the_first_candidate(
    grading: str, verdicts: list[str]
) -> None:
    """`-M grading`: the right verdict (the candidate the reply is; none for what every
    candidate says), or the first candidate shown, whatever the reply."""
    candidates = [
        "I see you love jazz. Enjoy!",
        "I see you gave up jazz. Enjoy!",
        "Rock on. Enjoy!",
    ]
    grader = OracleModel("oracle", grading=grading)
    said = []
    for reply in (candidates[1], "Enjoy!"):
        prompt = grader_prompt("Any music tonight?", reply, candidates)
        output = asyncio.run(
            grader.generate([ChatMessageUser(content=prompt)], [], "none", GenerateConfig())
        )
        said.append(output.completion.removeprefix("<candidate>").removesuffix("</candidate>"))
    assert said == verdicts


def test_oracle_with_a_question_file_missing_here_says_what_to_pass(
    small_split: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect logs model arguments as given: a relative `-M questions` names nothing
    when the log is retried from another folder, which must say so in one line."""
    monkeypatch.chdir(tmp_path)
    relative = f"{small_split.name}/questions_32k.csv"
    assert OracleModel("oracle", questions=relative).source == Path(relative)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with pytest.raises(PersonaMemArgumentError) as info:
        get_model("personamem/oracle", memoize=False, questions=relative)
    assert str(info.value) == (
        f"personamem/oracle: -M questions={relative}: no such file (relative to the current "
        f"folder {elsewhere}). Pass the question file the task reads as an absolute path: a "
        "log keeps model arguments as given, so a relative one names nothing when the log is "
        "retried from another folder."
    )
    missing = str(tmp_path / "missing.csv")
    with pytest.raises(PersonaMemArgumentError, match=f"questions={missing}: no such file. "):
        OracleModel("oracle", questions=missing)


@pytest.mark.slow  # an end-to-end run
def test_oracle_names_a_question_it_does_not_know(small_split: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    generate_split(other, "32k", contexts=1, min_messages=20, max_messages=30, questions=2, seed=9)
    (log,) = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(small_split)},
        model="personamem/oracle",
        model_args={"questions": str(other / "questions_32k.csv")},
        log_dir=str(tmp_path / "logs"),
        display=DISPLAY,
        limit=1,
    )
    assert log.status == "error"
    assert log.error is not None
    assert "holds no question of" in log.error.message
    assert str(other / "questions_32k.csv") in log.error.message
