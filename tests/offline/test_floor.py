"""`personamem/floor`: model-free baselines that read only the prompt a model is sent."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ChatMessageUser, get_model
from support.helpers import DISPLAY, REAL_QUESTIONS, require, run_task

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.offline.floor import choose

TASK = "inspect_personamem/personamem_32k"


def floor_run(data: Path, log_dir: Path, rule: str, **task_args: object) -> EvalLog:
    model = get_model("personamem/floor", rule=rule)
    log = run_task(TASK, model, log_dir, {"data_dir": str(data), **task_args})
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize("shuffle", [None, 3])
@pytest.mark.slow  # an end-to-end run
def test_longest_picks_the_longest_option_shown(
    small_split: Path, tmp_path: Path, shuffle: int | None
) -> None:
    log = floor_run(small_split, tmp_path, "longest", shuffle=shuffle)
    assert log.samples
    for sample in log.samples:
        assert sample.choices is not None  # the options as shown
        lengths = [len(text) for text in sample.choices]
        expected = "abcd"[lengths.index(max(lengths))]  # ties: the earliest
        assert sample.output.completion == f"<final_answer>({expected})"


@pytest.mark.slow
def test_longest_on_the_real_32k_questions_is_right_304_times(tmp_path: Path) -> None:
    """The figure the README and docs/offline.md give, by their command: the real
    question file alone in its folder (history=none reads no context file), a run on
    the released data."""
    data = require(REAL_QUESTIONS).parent
    log = floor_run(data, tmp_path / "logs", "longest", history="none")
    assert log.results is not None and log.eval.metadata is not None
    assert log.eval.metadata["data_release"] == "released"
    metrics = log.results.scores[0].metrics
    assert round(metrics["accuracy"].value * 589) == 304
    assert round(metrics["category_macro"].value, 3) == 0.596


def choice(rule: str, question: str, options: list[str], history: Sequence[str] = ()) -> int:
    messages: list[ChatMessage] = [ChatMessageUser(content=text) for text in history]
    return asyncio.run(choose(rule, question, options, messages, seed=1))


def test_question_and_history_rules_pick_by_word_overlap() -> None:
    options = ["golf clubs for sale", "jazz music tonight", "a recipe", "the weather"]
    assert choice("question", "I love jazz music", options) == 1
    history = ["We talked about golf.", "Golf clubs, golf courses and golf balls.", "Hello"]
    assert choice("history", "What now?", options, history) == 0
    assert choice("history", "What now?", options, []) == 0  # nothing to match: the earliest
    assert choice("longest", "q", ["ab", "abcd", "abcd", "a"]) == 1  # ties: the earliest


def test_random_is_repeatable_and_uses_every_letter() -> None:
    picks = [choice("random", f"question {i}", ["w", "x", "y", "z"]) for i in range(40)]
    assert picks == [choice("random", f"question {i}", ["w", "x", "y", "z"]) for i in range(40)]
    assert set(picks) == {0, 1, 2, 3}


@pytest.mark.slow  # an end-to-end run
def test_floor_arguments_and_prompts_it_cannot_read(small_split: Path, tmp_path: Path) -> None:
    with pytest.raises(PersonaMemArgumentError, match="rule='shortest': choose one of"):
        get_model("personamem/floor", rule="shortest")
    with pytest.raises(PersonaMemArgumentError, match="personamem/nothing: no such model"):
        get_model("personamem/nothing")
    # refused as the task is built, before any sample runs
    with pytest.raises(PersonaMemArgumentError, match="memory_prompt=paper: run it with no -T"):
        run_task(
            TASK, get_model("personamem/floor", rule="longest"), tmp_path,
            {"data_dir": str(small_split), "history": "rag", "retriever": "bm25",
             "memory_prompt": "paper"},
        )  # fmt: skip
    assert not list(tmp_path.glob("*.eval"))


@pytest.mark.slow  # an end-to-end run
def test_the_floor_answers_personamem_v2_prompts(small_v2: Path, tmp_path: Path) -> None:
    """Longest option on v2: right exactly where the correct answer is the one longest."""
    (log,) = inspect_eval(
        "inspect_personamem/personamem_v2_32k",
        task_args={"data_dir": str(small_v2)},
        model="personamem/floor",
        model_args={"rule": "longest"},
        log_dir=str(tmp_path),
        display=DISPLAY,
    )
    assert log.status == "success", log.error
    assert log.samples is not None and log.results is not None
    expected = [max(s.choices or [], key=len) == s.metadata["correct_answer"] for s in log.samples]
    assert log.results.scores[0].metrics["accuracy"].value == sum(expected) / len(expected)
    assert log.results.scores[0].metrics["unparsed"].value == 0.0
