"""What a task writes into its log for a later reader (`run/facts.py`)."""

from __future__ import annotations

import hashlib
from typing import Any

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.history.table import HISTORIES
from inspect_personamem.parameters import Point
from inspect_personamem.run.arguments import scoring_defaults
from inspect_personamem.run.facts import prompt_digests, run_facts
from inspect_personamem.scoring.grader.prompt import GRADER_PROMPT


def facts(key: str, **changed: Any) -> dict[str, Any]:
    """The facts of a run of version `key` with every scoring setting at its default
    but those `changed`."""
    version = VERSIONS[key]
    settings = {**scoring_defaults(version), **changed}
    point = Point(HISTORIES[settings["history"]], ANSWERS[settings["answer"]])
    return run_facts(version, point, settings)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_chosen_answers_facts_are_its_instructions_digest_and_its_defaults() -> None:
    made = facts("v1")
    assert made["prompts"] == {"datasets/v1/prompt.py:INSTRUCTION": digest(INSTRUCTION)}
    assert (made["scored_as"], made["judged"], made["upper_bound"]) == ("chosen", False, False)
    assert made["scoring_defaults"]["history"] == "full"
    assert made["scoring_defaults"]["top_k"] == "5"  # as text, as a log's settings are read
    assert "distance_to_ref_in_tokens" in made["evidence_rule"]
    assert "\n" not in made["evidence_rule"]


def test_an_evidence_only_run_is_an_upper_bound() -> None:
    assert facts("v1", history="evidence")["upper_bound"]


def test_a_judged_run_records_the_judges_prompts_not_the_graders() -> None:
    made = facts("v2", answer="open", judge="preference")
    assert made["scored_as"] == "judged" and made["judged"]
    assert "scoring/grader/prompt.py:GRADER_PROMPT" not in made["prompts"]
    assert any(name.startswith("datasets/v2/judge.py:") for name in made["prompts"])
    assert "snippet" in made["evidence_rule"]
    graded = facts("v2", answer="open")
    assert graded["prompts"]["scoring/grader/prompt.py:GRADER_PROMPT"] == digest(GRADER_PROMPT)
    assert (graded["scored_as"], graded["judged"]) == ("graded", False)


def test_digests_are_sorted_by_where_the_text_is_defined() -> None:
    assert list(prompt_digests({"b.py:B": "b", "a.py:A": "a"})) == ["a.py:A", "b.py:B"]
