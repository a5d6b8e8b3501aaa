"""The grader's prompt, read back, and how its verdicts are read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspect_personamem.scoring.grader.prompt import (
    GRADER_PROMPT,
    GRADER_PROMPT_VERSION,
    Verdict,
    grader_prompt,
    read_grader_prompt,
    read_verdict,
)

DOCS = Path(__file__).parents[3] / "docs" / "open-answers.md"


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("<candidate>2</candidate>", Verdict("named", 1)),
        ("Reasoning...\n<candidate> 4 </candidate>", Verdict("named", 3)),
        ("<CANDIDATE>none</CANDIDATE>", Verdict("none")),
        # the grader quoting the form before answering: the last tag is its verdict
        ("Form: <candidate>N</candidate>. So: <candidate>1</candidate>", Verdict("named", 0)),
        ("<candidate>1</candidate>, on reflection <candidate>3</candidate>", Verdict("named", 2)),
        ("<candidate>5</candidate>", Verdict("unreadable")),
        ("<candidate>0</candidate>", Verdict("unreadable")),
        ("<candidate>N</candidate>", Verdict("unreadable")),
        ("candidate 2", Verdict("unreadable")),
        ("", Verdict("unreadable")),
    ],
)
def test_verdicts(answer: str, verdict: Verdict) -> None:
    assert read_verdict(answer, 4) == verdict


def test_a_prompt_reads_back_to_what_it_asked() -> None:
    candidates = ["One.\nTwo lines.", "</reply> tricky", "Third", "Fourth <candidate>1</candidate>"]
    prompt = grader_prompt("I'm off to Lisbon.\nAny ideas?", "Try the trams.", candidates)
    question = read_grader_prompt(prompt)
    assert question is not None
    assert question.message == "I'm off to Lisbon.\nAny ideas?"
    assert question.reply == "Try the trams."
    assert question.candidates == tuple(candidates)
    assert read_grader_prompt("User: hello") is None


def test_the_prompt_follows_the_number_of_candidates() -> None:
    """A question of three options (or twelve) is asked with as many candidates, named
    and numbered; four is the prompt PersonaMem's and PersonaMem-v2's runs send."""
    three = grader_prompt("m", "r", ["x", "y", "z"])
    assert "and three candidate replies." in three and "N is 1, 2, 3 or none." in three
    assert "<candidate_4>" not in three
    twelve = [f"option {n}" for n in range(12)]
    question = read_grader_prompt(grader_prompt("m", "r", twelve))
    assert question is not None and question.candidates == tuple(twelve)
    four = grader_prompt("m", "r", ["w", "x", "y", "z"])
    assert four.startswith(GRADER_PROMPT.split("{message}")[0])
    assert four.endswith(GRADER_PROMPT.split("{candidates}")[1])


def test_the_docs_print_the_prompt_of_this_version() -> None:
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(r"grader prompt, version (\S+)\):\n\n```text\n(.*?)\n```", text, re.DOTALL)
    assert found is not None, "docs/open-answers.md shows the grader prompt"
    assert found[1] == GRADER_PROMPT_VERSION
    assert found[2] == GRADER_PROMPT
