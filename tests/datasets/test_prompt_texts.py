"""The fixed texts each version's runs send a model (`DatasetVersion.prompts`, with the
axis values' `AxisValue.prompts`): each named where it is defined, and which a run
sends by its settings. tests/datasets/test_rendered_prompts.py checks that a run sends
them."""

from __future__ import annotations

import importlib

import pytest
from support.helpers import version_prompts as texts

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.history.table import HISTORIES

SETTINGS = [
    {"history": history, "answer": answer, **extra}
    for history in HISTORIES
    for answer in ANSWERS
    for extra in ({}, {"memory_prompt": "paper"}, {"judge": "preference"})
]


@pytest.mark.parametrize("key", ["v1", "v2"])
def test_each_text_is_named_where_it_is_defined(key: str) -> None:
    """`module.py:NAME` is the constant of that name, and holds that text."""
    for settings in SETTINGS:
        for name, text in texts(key, **settings).items():
            path, constant = name.split(":")
            module = importlib.import_module("inspect_personamem." + path[:-3].replace("/", "."))
            assert getattr(module, constant) == text, (settings, name)


def test_which_texts_a_run_sends_follows_its_settings() -> None:
    v1_instruction = "datasets/v1/prompt.py:INSTRUCTION"
    grader = "scoring/grader/prompt.py:GRADER_PROMPT"
    paper = [f"datasets/v1/paper_prompt.py:{n}" for n in ("PAPER_SYSTEM", "PAPER_HEADER")]
    assert list(texts("v1")) == [v1_instruction]
    assert list(texts("v1", answer="open")) == [grader]
    assert list(texts("v1", answer="logprob")) == []  # the options are never shown
    rag_paper = texts("v1", history="rag", memory_prompt="paper")
    assert v1_instruction not in rag_paper and set(paper) <= set(rag_paper)
    assert "history/memory/prompts.py:FACTS_HEADER" in texts("v1", history="memory")
    sentence = "datasets/v2/prompt.py:APPENDED_SENTENCE"
    assert list(texts("v2")) == [
        sentence, "datasets/v2/prompt.py:OPTIONS_INTRODUCTION",
        "datasets/v2/prompt.py:OPTIONS_INSTRUCTION",
    ]  # fmt: skip
    assert list(texts("v2", answer="open")) == [grader, sentence]
    assert list(texts("v2", answer="open", judge="preference")) == [
        sentence, "datasets/v2/judge.py:JUDGE_PROMPT_NARROW_POSITIVE",
        "datasets/v2/judge.py:JUDGE_PROMPT_NARROW_NEGATIVE",
    ]  # fmt: skip
