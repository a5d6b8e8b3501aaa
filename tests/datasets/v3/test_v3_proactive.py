"""The proactive types scored as the newest runner scores them
(evaluation/tasks/proactive_actions.py@8e2a111f, the composite as EVAL.md@8e2a111f
states it): the response object the judge sees (a reply with no JSON, or `{}`, stands
in as no action with the raw text as content), the deterministic decision, and
proactive_action_score = 0.7 x decision + 0.3 x justification (a right silence:
restraint_justification / 10; otherwise the five rationale dims / 50), with the gates
and the verbosity penalty. Judgements are built by hand; expected values are worked in
the comments."""

from __future__ import annotations

import json

import pytest

from inspect_personamem.datasets.v3.judges.proactive import (
    Decision,
    ProactiveScore,
    proactive_action_score,
    proactive_response,
    read_proactive,
)
from inspect_personamem.datasets.v3.reading.reply import Unreadable

DIMS = ("trigger_detection_correctness", "preference_alignment", "avoid_overpersonalization",
        "voice_match", "restraint_justification")  # fmt: skip


def judgement(*values: float, **extra: object) -> str:
    return json.dumps({**dict(zip(DIMS, values, strict=True)), **extra})


def read(answer: str, decision: Decision) -> ProactiveScore:
    result = read_proactive(answer, decision)
    assert isinstance(result, ProactiveScore)
    return result


@pytest.mark.parametrize("reply", ["I'd stay quiet here, nothing worth sending.", "{}", ""])
def test_a_reply_without_a_json_object_is_no_action_with_its_text(reply: str) -> None:
    response = proactive_response(reply)
    assert response == {"should_act": False, "content": reply, "reasoning": "(failed_to_parse)"}
    # a list is no object either
    assert proactive_response("[1, 2]")["content"] == "[1, 2]"
    # an object is kept as given
    assert proactive_response('{"should_act": true}') == {"should_act": True}


@pytest.mark.parametrize(
    ("should_act", "expected", "correct"),
    [
        (True, "act", True),
        (False, "act", False),
        ("false", "restrain", True),  # judges._bool: the string "false" holds
        ("yes", "act", True),
        (None, "restrain", True),
        (0, "act", False),
    ],
)
def test_the_decision_reads_should_act_as_the_runner(
    should_act: object, expected: str, correct: bool
) -> None:
    assert Decision.of({"should_act": should_act}, expected).correct is correct


def test_an_unparsed_prose_reply_is_a_restraint_decision() -> None:
    # prose with no JSON: should_act False -> right on a restrain row, wrong on an act row;
    # its words are counted as content
    response = proactive_response("Nothing to send right now.")
    assert Decision.of(response, "restrain").correct
    assert not Decision.of(response, "act").correct
    assert Decision.of(response, "act").words == 5


@pytest.mark.parametrize(
    ("values", "expected", "should_act", "score"),
    [
        # right act, all 10s: 0.7 + 0.3 x 1 = 1
        ((10, 10, 10, 10, 10), "act", True, 1.0),
        # right act: (10 + 5 + 5 + 5 + 10) / 50 = 0.7 -> 0.7 + 0.21 = 0.91
        ((10, 5, 5, 5, 10), "act", True, 0.91),
        # wrong (silent on an act row), same judgement: 0.3 x 0.7 = 0.21
        ((10, 5, 5, 5, 10), "act", False, 0.21),
        # right silence: restraint_justification 7 alone -> 0.7 + 0.3 x 0.7 = 0.91, the
        # act-shaped dims (4s) not read
        ((4, 4, 4, 4, 7), "restrain", False, 0.91),
        # wrong (acted on a restrain row): (4 + 4 + 4 + 4 + 7) / 50 = 0.46 -> 0.138
        ((4, 4, 4, 4, 7), "restrain", True, 0.138),
    ],
)
def test_the_composite(
    values: tuple[float, ...], expected: str, should_act: bool, score: float
) -> None:
    decision = Decision.of({"should_act": should_act, "content": "short"}, expected)
    assert proactive_action_score(read(judgement(*values), decision), decision) == (
        pytest.approx(score)
    )


def test_justification_quality_is_read_where_given_and_trigger_stands_in_otherwise() -> None:
    acted = Decision.of({"should_act": True}, "act")
    # without it: trigger_detection_correctness 0 stands in -> (0 + 10 x 4) / 50 = 0.8
    assert read(judgement(0, 10, 10, 10, 10), acted).justification == pytest.approx(0.8)
    # with it: 6 replaces the diagnostic trigger dim -> (6 + 40) / 50 = 0.92
    given = judgement(0, 10, 10, 10, 10, justification_quality=6)
    assert read(given, acted).justification == pytest.approx(0.92)


def test_a_right_silence_needs_only_its_restraint_dim() -> None:
    silent = Decision.of({"should_act": False}, "restrain")
    answer = json.dumps({"restraint_justification": 10})
    assert read(answer, silent).justification == 1.0
    # the act arm reads all five
    acted = Decision.of({"should_act": True}, "act")
    assert read_proactive(answer, acted) == Unreadable("no_number", "trigger_detection_correctness")


def test_the_gates_zero_the_row_below_the_decision_floor() -> None:
    right = Decision.of({"should_act": True, "content": "hi"}, "act")
    for flag in ("negative_leakage", "stale_preference_use"):
        gated = read(judgement(10, 10, 10, 10, 10, **{flag: True}), right)
        assert proactive_action_score(gated, right) == 0.0
    silent = Decision.of({"should_act": False}, "restrain")
    assert silent.correct
    zero = read(judgement(10, 10, 10, 10, 0), silent)
    assert (proactive_action_score(zero, silent), zero.zeroed_by) == (0.0, "silent_restraint")


def test_verbosity_keeps_the_decision_floor() -> None:
    long = " ".join(["word"] * 31)
    right = Decision.of({"should_act": True, "content": long}, "act")
    wrong = Decision.of({"should_act": False, "content": long}, "act")
    top = judgement(10, 10, 10, 10, 10)
    # right: 0.7 + (1.0 - 0.7) x 0.7 = 0.91; wrong: 0 floor, 0.3 x 0.7 = 0.21
    assert proactive_action_score(read(top, right), right) == pytest.approx(0.91)
    assert proactive_action_score(read(top, wrong), wrong) == pytest.approx(0.21)
    # 30 words is within the limit
    exact = Decision.of({"should_act": True, "content": " ".join(["w"] * 30)}, "act")
    assert proactive_action_score(read(top, exact), exact) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("response", "expected", "fallback"),
    [
        # restrain, silent, no evidence: 0.7 (no length credit for silence)
        ({"should_act": False}, "restrain", 0.7),
        # restrain, silent, evidence cited: 0.7 + 0.3
        ({"should_act": False, "evidence_cited": "window open"}, "restrain", 1.0),
        # act, acted, short, no evidence: 0.7 + 0.15
        ({"should_act": True, "content": "hi"}, "act", 0.85),
        # act, silent: 0 + 0.15 length (empty content is short) + 0
        ({"should_act": False}, "act", 0.15),
    ],
)
def test_the_authors_fallback_where_no_judge_scores(
    response: dict[str, object], expected: str, fallback: float
) -> None:
    assert Decision.of(response, expected).fallback() == pytest.approx(fallback)
