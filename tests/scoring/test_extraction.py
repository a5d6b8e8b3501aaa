from __future__ import annotations

import csv

import pytest
from support.helpers import REFERENCE_RESPONSES, require

from inspect_personamem.scoring.extraction import final_answer_segment, judge, option_letters


def test_reference_run_scores_exactly_as_the_official_column() -> None:
    with require(REFERENCE_RESPONSES).open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 589
    verdicts = [judge(row["model_response"], row["correct_answer"].strip("()")) for row in rows]
    agree = sum(
        v.correct == (row["score"] == "True") for v, row in zip(verdicts, rows, strict=True)
    )
    assert agree == 589
    assert sum(v.correct for v in verdicts) == 347
    # the official `predicted_answer` column is our final-answer segment
    assert all(v.segment == row["predicted_answer"] for v, row in zip(verdicts, rows, strict=True))


@pytest.mark.parametrize(
    ("response", "letters"),
    [
        ("(B)", {"b"}),
        ("(a) or maybe (c)", {"a", "c"}),
        ("I pick b.", {"b"}),
        ("a bold choice", {"a"}),  # the official rule reads the article 'a' as an option
        ("(b), not a", {"b"}),  # parenthesised letters win over bare ones
        ("none of them", set()),
        ("(e)", set()),
    ],
)
def test_option_letters(response: str, letters: set[str]) -> None:
    assert option_letters(response) == letters


def test_segment_is_after_the_last_tag_and_before_a_closing_tag() -> None:
    assert final_answer_segment("x <final_answer>(a) <final_answer> (b)</final_answer> ") == "(b)"
    assert final_answer_segment("  no tag (c)  ") == "no tag (c)"
    # the official check of the tag is case-sensitive
    assert final_answer_segment("<FINAL_ANSWER>(c)") == "<FINAL_ANSWER>(c)"


def test_verdicts_and_their_reasons() -> None:
    single = judge("Thinking about (a) and (b)... <final_answer>(b)", "b")
    assert single.correct and single.status == "single" and single.answer == {"b"}
    assert "the final answer names only (b)" in single.explanation("b")

    wrong = judge("<final_answer>(a)", "b")
    assert not wrong.correct and wrong.status == "single"
    assert wrong.explanation("b") == "Incorrect: answered (a), expected (b)."

    several = judge("<final_answer>(a) or (b)", "b")
    assert not several.correct and several.status == "multiple"
    assert "several option letters found: (a), (b)" in several.explanation("b")

    nothing = judge("I cannot decide.", "b")
    assert not nothing.correct and nothing.status == "none"

    # the official fallback: the segment has a bare 'a', the whole response only '(c)'
    fallback = judge("(c) fits best. <final_answer> a", "c")
    assert fallback.correct and fallback.answer == {"c"}
    assert "whole response" in fallback.explanation("c")
