"""PersonaMem (v1) as a dataset version (`datasets/v1/version.py`): what is known of the
files a split selects, a run's data read with or without the histories and its task
metadata, the texts it sends under each prompt, and the selectors it refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.data.contexts import NO_CONTEXTS
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.version import VERSION
from inspect_personamem.history.table import HISTORIES
from inspect_personamem.parameters import Point
from inspect_personamem.run.arguments import parameters


def settings(**given: Any) -> dict[str, Any]:
    """PersonaMem's task arguments at their defaults, but those given."""
    return {name: p.default for name, p in parameters(VERSION).items()} | given


def test_a_split_selects_its_question_and_context_files() -> None:
    assert VERSION.released_files({"split": "1M"}) == {
        "questions_1M.csv": PERSONAMEM.released["1M"],
        "shared_contexts_1M.jsonl": PERSONAMEM.released_contexts["1M"],
    }
    assert VERSION.released_questions({"split": "32k"}).rows == 589
    with pytest.raises(ValueError, match="Unknown PersonaMem split '64k'"):
        VERSION.released_questions({"split": "64k"})


def test_a_run_reads_the_histories_only_where_it_shows_them(small_split: Path) -> None:
    without = VERSION.load(settings(data_dir=str(small_split)), reads_history=False)
    assert without.contexts is NO_CONTEXTS and len(without.questions) == 24
    synthetic = "synthetic: questions_32k.csv written by inspect_personamem.datasets.v1.generator"
    assert without.metadata == {
        "split": "32k",
        "data_source": f"local folder {small_split}",
        "data_release": synthetic,
        "data_checked": "questions_32k.csv: rows, bytes, sha256; shared_contexts_32k.jsonl: "
        "not read",
    }
    full = VERSION.load(settings(data_dir=str(small_split)), reads_history=True)
    first = full.questions[0]
    assert len(full.contexts.history(first.columns["shared_context_id"], first.end_index)) == (
        first.end_index
    )
    assert full.metadata["data_checked"].endswith("shared_contexts_32k.jsonl: rows, bytes, sha256")


def test_the_official_instruction_is_sent_only_where_the_model_sees_the_options() -> None:
    instruction = "datasets/v1/prompt.py:INSTRUCTION"
    choice = Point(HISTORIES["full"], ANSWERS["choice"])
    assert instruction in VERSION.prompts(choice, settings())
    rag = Point(HISTORIES["rag"], ANSWERS["choice"])
    paper = VERSION.prompts(rag, settings(history="rag", memory_prompt="paper"))
    assert instruction not in paper and "datasets/v1/paper_prompt.py:PAPER_TEMPLATE" in paper
    opened = Point(HISTORIES["full"], ANSWERS["open"])
    assert instruction not in VERSION.prompts(opened, settings(answer="open"))


def test_its_split_is_all_that_chooses() -> None:
    assert VERSION.refuses_selector("--length") == "PersonaMem (v1) has its length in --split"
    assert VERSION.refuses_selector("--subset") == "PersonaMem (v1) is chosen by --split"
    assert VERSION.fixed == "split" and VERSION.cluster == "shared_context_id"
