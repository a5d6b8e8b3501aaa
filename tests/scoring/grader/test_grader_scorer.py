"""Open answers graded: the oracle as model and grader, and stand-in graders that are
faithful, wrong, biased to length or position, never say none, or answer nonsense, each
showing up as such in the trials of its kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, get_model
from support.graders import (
    Rule,
    faithful,
    first,
    grader,
    length_biased,
    metrics,
    never_none,
    nonsense,
    open_run,
    shared_split,
    wrong,
)
from support.helpers import mock_model

from inspect_personamem.data.options import LETTERS
from inspect_personamem.scoring.grader.prompt import read_grader_prompt
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD

ORACLE = "personamem/oracle"


def scores(log: EvalLog) -> list[dict[str, Any]]:
    assert log.samples is not None
    return [s.scores["graded_scorer"].metadata or {} for s in log.samples if s.scores]


def test_oracle_as_model_and_grader(small_split: Path, tmp_path: Path) -> None:
    log = open_run(small_split, tmp_path, {"grader": "personamem/oracle"}, grader_calibration=5)
    assert log.status == "success", log.error
    found = metrics(log)
    assert found["accuracy"] == 1.0
    assert found["grader_identity"] == 1.0 and found["grader_position_bias"] == 0.0
    assert found["grader_calibrated"] == 5 and found["grader_none"] == 0.0
    # a grader that errs in no trial leaves the accuracy as it is
    assert found["accuracy_corrected"] == 1.0 and found["grader_false_positives"] == 0.0
    assert "category_macro" in found and any(name.startswith("sessions_") for name in found)
    assert log.eval.model_roles is not None and "grader" in log.eval.model_roles
    [recorded] = log.eval.scorers or []
    metric_options = {
        getattr(m, "name", ""): getattr(m, "options", None) for m in recorded.metrics or []
    }
    # the corrected accuracy's questions resampled by the history they share
    corrected = metric_options["inspect_personamem/accuracy_corrected"]
    assert corrected == {"cluster": "shared_context_id"}
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


@pytest.mark.slow  # an end-to-end run
def test_the_oracle_errs_with_its_chance_and_the_grader_sees_it(
    small_split: Path, tmp_path: Path
) -> None:
    log = open_run(small_split, tmp_path, {"grader": "personamem/oracle"}, accuracy=0.0, limit=8)
    assert metrics(log)["accuracy"] == 0.0  # another candidate's text, named as such
    assert all(meta["status"] == "named" for meta in scores(log))


KINDS = ("identity", "generic", "mixed", "length", "reorder")


@pytest.mark.parametrize(
    ("rule", "shares", "bias"),
    [
        (faithful, (1.0, 1.0, 1.0, 1.0, 1.0), 0.0),
        # sure only of a verbatim reply: else the longest candidate, never none
        (length_biased, (1.0, 0.0, 0.0, 0.0, 1.0), 0.0),
        (never_none, (1.0, 0.0, 0.0, 1.0, 1.0), 0.0),
        # the first candidate shown: right by chance, and moved by every reordering
        (first, (0.25, 0.0, 0.0, None, 0.0), 1.0),
        (wrong, (0.0, 0.0, 0.0, 0.0, 1.0), 0.0),
    ],
)
@pytest.mark.slow  # an end-to-end run
def test_each_grader_shows_in_the_trials_of_its_kind(
    small_split: Path,
    tmp_path: Path,
    rule: Rule,
    shares: tuple[float | None, ...],
    bias: float,
) -> None:
    log = open_run(
        shared_split(small_split), tmp_path, {"grader": grader(rule)}, grader_calibration=8
    )
    found = metrics(log)
    assert found["grader_calibrated"] == 8
    for kind, share in zip(KINDS, shares, strict=True):
        low, high = found[f"grader_{kind}_low"], found[f"grader_{kind}_high"]
        assert low <= found[f"grader_{kind}"] <= high
        if share is not None:
            assert found[f"grader_{kind}"] == share, kind
    assert found["grader_position_bias"] == bias
    calibrated = [meta for meta in scores(log) if "calibration" in meta]
    assert len(calibrated) == 8
    for meta in calibrated:
        counts = {kind: count["trials"] for kind, count in meta["grader_trials"].items()}
        assert counts == {
            "identity_correct": 2,
            "identity_wrong": 6,
            "generic": 2,  # every candidate of the shared split opens and closes alike
            "mixed": 2,
            "length": counts["length"],
            "reorder": 1,
        }
        assert counts["length"] in (0, 2)
        assert len(meta["calibration"]) == sum(counts.values())
        assert meta["calibration_trials"] == 8
    assert any(meta["grader_trials"]["length"]["trials"] for meta in calibrated)
    if rule is wrong:
        assert found["accuracy"] == 0.0
    if rule is first:  # right only where the correct candidate is shown first
        assert 0.0 < found["accuracy"] < 1.0


@pytest.mark.slow  # an end-to-end run
def test_the_accuracy_is_corrected_by_the_rates_the_trials_measured(
    small_split: Path, tmp_path: Path
) -> None:
    """A grader that never says none names the correct candidate in some generic and
    mixed trials: a false-positive rate the corrected accuracy takes out."""
    data = shared_split(small_split)
    log = open_run(data, tmp_path, {"grader": grader(never_none)}, accuracy=0.5)
    found = metrics(log)
    sensitivity, false = found["grader_sensitivity"], found["grader_false_positives"]
    assert sensitivity == 1.0 and 0.0 < false < 0.5
    expected = (found["accuracy"] - false) / (sensitivity - false)
    assert found["accuracy_corrected"] == pytest.approx(expected)
    assert found["accuracy_corrected_low"] < found["accuracy_corrected"]
    assert found["accuracy_corrected"] < found["accuracy_corrected_high"]


@pytest.mark.slow  # an end-to-end run
def test_a_grader_answering_nonsense_is_counted_unreadable(
    small_split: Path, tmp_path: Path
) -> None:
    log = open_run(small_split, tmp_path, {"grader": grader(nonsense)}, grader_calibration=2)
    found = metrics(log)
    assert found["accuracy"] == 0.0 and found["grader_unreadable"] == 1.0
    assert found["grader_none"] == 0.0 and found["grader_identity"] == 0.0
    assert {meta["status"] for meta in scores(log)} == {"unreadable"}


@pytest.mark.slow  # an end-to-end run
def test_calibration_zero_skips_it(small_split: Path, tmp_path: Path) -> None:
    log = open_run(
        small_split, tmp_path, {"grader": "personamem/oracle"}, limit=3, grader_calibration=0
    )
    found = metrics(log)
    assert found["grader_calibrated"] == 0
    assert found["grader_identity"] != found["grader_identity"]  # NaN: nothing measured


@pytest.mark.slow  # an end-to-end run
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


@pytest.mark.slow  # an end-to-end run
def test_the_grader_is_recorded_alike_however_the_model_under_test_grades(
    small_split: Path, tmp_path: Path
) -> None:
    """`-T grader=self`, or the same model (name and arguments) bound to the grader
    role: each score names the model the log names as the model under test, alike, so
    that reports can tell a self-graded run by who graded."""
    questions = str(small_split / "questions_32k.csv")
    records = []
    for roles, how in (({"grader": get_model(ORACLE, questions=questions, accuracy=0.7)}, "role"),
                       (None, "self")):  # fmt: skip
        log = open_run(small_split, tmp_path, roles, 0.7, 2, grader=how, grader_calibration=0)
        [record] = {json.dumps(meta[GRADER_RECORD], sort_keys=True) for meta in scores(log)}
        found = json.loads(record)
        assert (found["model"], found["args"]) == (log.eval.model, log.eval.model_args)
        records.append(record)
    assert records[0] == records[1]


@pytest.mark.slow  # an end-to-end run
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
