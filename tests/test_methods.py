"""The answering-method seam: one table entry per method, arguments checked against it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import mock_model, run_task
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_personamem.data.contexts import history_store, sample_history
from inspect_personamem.data.prompt import final_answer
from inspect_personamem.methods import METHODS, AnsweringMethod


@pytest.mark.parametrize(
    ("method", "argument", "value"),
    [
        ("generate", "normalization", "chars"),
        ("generate", "context_window", 512),
        ("generate", "option_batch_size", 2),
        ("generate", "prefill_chunk", 64),
        ("logprob", "cache_breakpoints", False),
    ],
)
def test_an_argument_of_another_method_is_an_error_naming_it(
    small_split: Path, method: str, argument: str, value: object
) -> None:
    from inspect_personamem.tasks import personamem_32k

    with pytest.raises(ValueError, match=f"{argument} have no effect with method='{method}'"):
        personamem_32k(data_dir=str(small_split), method=method, **{argument: value})


def test_an_argument_left_at_its_default_is_accepted(small_split: Path) -> None:
    from inspect_personamem.tasks import personamem_32k

    task = personamem_32k(data_dir=str(small_split), method="logprob", cache_breakpoints=True)
    assert task.metadata is not None and task.metadata["method"] == "logprob"


@solver
def history_length_solver(
    contexts_file: str | None, system_messages: str, keep_history_in_log: bool
) -> Solver:
    """A test-only method: answers (a) when the history is longer than 40 messages."""
    store = history_store(contexts_file)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        history = sample_history(store, state.metadata)
        state.metadata["seen_history"] = len(history)
        state.output.completion = final_answer("a" if len(history) > 40 else "b")
        return state

    return solve


def test_a_new_method_is_one_table_entry(
    small_split: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        METHODS,
        "length",
        AnsweringMethod(history_length_solver, (), "grouped", "test: answers by history length"),
    )
    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda messages: "unused"),
        tmp_path / "logs",
        {"data_dir": str(small_split), "method": "length"},
    )
    assert log.status == "success" and log.samples
    for sample in log.samples:
        end = sample.metadata["end_index_in_shared_context"]
        assert sample.metadata["seen_history"] == end
        assert sample.output.completion == final_answer("a" if end > 40 else "b")
    assert log.eval.metadata is not None and log.eval.metadata["method"] == "length"
