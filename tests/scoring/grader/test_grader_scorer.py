"""Open answers graded: the oracle as model and grader, and stand-in graders that are
wrong, position-biased or nonsensical on purpose, showing up as such."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage
from support.graders import Rule, faithful, first, grader, metrics, nonsense, open_run, wrong
from support.helpers import mock_model

from inspect_personamem.data.options import LETTERS
from inspect_personamem.scoring.grader.prompt import read_grader_prompt


def scores(log: EvalLog) -> list[dict[str, object]]:
    assert log.samples is not None
    return [s.scores["graded_scorer"].metadata or {} for s in log.samples if s.scores]


def test_oracle_as_model_and_grader(small_split: Path, tmp_path: Path) -> None:
    log = open_run(small_split, tmp_path, {"grader": "personamem/oracle"}, grader_calibration=5)
    assert log.status == "success", log.error
    found = metrics(log)
    assert found["accuracy"] == 1.0
    assert found["grader_identity"] == 1.0 and found["grader_position_bias"] == 0.0
    assert found["grader_calibrated"] == 5 and found["grader_none"] == 0.0
    assert "category_macro" in found and any(name.startswith("sessions_") for name in found)
    assert log.eval.model_roles is not None and "grader" in log.eval.model_roles
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        meta = sample.scores["graded_scorer"].metadata or {}
        # the grader's prompt, its answer and the order the candidates were shown in
        question = read_grader_prompt(str(meta["grader_prompt"]))
        assert question is not None
        shown = [LETTERS.index(letter) for letter in meta["candidate_order"]]
        options = sample.choices or []
        assert list(question.candidates) == [options[i] for i in shown]
        assert question.reply == sample.output.completion
        assert meta["grader_answer"] == sample.scores["graded_scorer"].explanation
        assert meta["self_graded"] is False


def test_the_oracle_errs_with_its_chance_and_the_grader_sees_it(
    small_split: Path, tmp_path: Path
) -> None:
    log = open_run(small_split, tmp_path, {"grader": "personamem/oracle"}, accuracy=0.0, limit=8)
    assert metrics(log)["accuracy"] == 0.0  # another candidate's text, named as such
    assert all(meta["status"] == "named" for meta in scores(log))


@pytest.mark.parametrize(
    ("rule", "identity", "bias"),
    [(faithful, 1.0, 0.0), (wrong, 0.0, 0.0), (first, 0.25, 1.0)],
)
def test_calibration_shows_the_grader_as_it_is(
    small_split: Path, tmp_path: Path, rule: Rule, identity: float, bias: float
) -> None:
    log = open_run(small_split, tmp_path, {"grader": grader(rule)}, grader_calibration=8)
    found = metrics(log)
    assert found["grader_calibrated"] == 8
    assert found["grader_identity"] == identity
    assert found["grader_position_bias"] == bias
    calibrated = [meta for meta in scores(log) if "calibration" in meta]
    assert len(calibrated) == 8
    assert all(meta["calibration_trials"] == 8 for meta in calibrated)
    if rule is wrong:
        assert found["accuracy"] == 0.0
    if rule is first:  # right only where the correct candidate is shown first
        assert 0.0 < found["accuracy"] < 1.0


def test_a_grader_answering_nonsense_is_counted_unreadable(
    small_split: Path, tmp_path: Path
) -> None:
    log = open_run(small_split, tmp_path, {"grader": grader(nonsense)}, grader_calibration=2)
    found = metrics(log)
    assert found["accuracy"] == 0.0 and found["grader_unreadable"] == 1.0
    assert found["grader_none"] == 0.0 and found["grader_identity"] == 0.0
    assert {meta["status"] for meta in scores(log)} == {"unreadable"}


def test_calibration_zero_skips_it(small_split: Path, tmp_path: Path) -> None:
    log = open_run(
        small_split, tmp_path, {"grader": "personamem/oracle"}, limit=3, grader_calibration=0
    )
    found = metrics(log)
    assert found["grader_calibrated"] == 0
    assert found["grader_identity"] != found["grader_identity"]  # NaN: nothing measured


def test_self_grading_only_when_asked_and_marked(small_split: Path, tmp_path: Path) -> None:
    asked: list[str] = []

    def reply(messages: list[ChatMessage]) -> str:
        question = read_grader_prompt(messages[-1].text)
        if question is None:
            asked.append(messages[-1].text)
            return "Enjoy it."
        return "<candidate>none</candidate>"

    model = mock_model(reply)
    from support.helpers import run_task

    log = run_task(
        "inspect_personamem/personamem_32k",
        model,
        tmp_path,
        {"data_dir": str(small_split), "answer": "open", "grader": "self",
         "grader_calibration": 0},
        limit=3,
    )  # fmt: skip
    assert log.status == "success", log.error
    assert len(asked) == 3
    assert all(meta["self_graded"] is True for meta in scores(log))
    assert metrics(log)["grader_none"] == 1.0


def test_a_failing_grader_leaves_the_question_unscored(small_split: Path, tmp_path: Path) -> None:
    def reply(messages: list[ChatMessage]) -> str:
        raise RuntimeError("grader service down")

    log = open_run(
        small_split,
        tmp_path,
        {"grader": mock_model(reply, name="mockllm/grader")},
        limit=2,
        grader_calibration=0,
    )
    assert log.status == "error"
    assert log.samples is None or all(not s.scores for s in log.samples)
