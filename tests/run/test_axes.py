"""The two axes: what the model sees of the past x how it answers, each a table of
small objects, which compose; a new source of history is one table entry (the checks
of a run's arguments against the tables: `test_arguments.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessage
from support.helpers import mock_model, run_task
from support.history_source import recent_history

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history import table
from inspect_personamem.parameters import AxisValue, Parameter

TASK = "inspect_personamem/personamem_32k"


def sent(log: EvalLog) -> dict[str, list[ChatMessage]]:
    """Per question, the messages its model call received."""
    assert log.status == "success", log.error
    return {
        str(sample.id): next(e.input for e in sample.events if e.event == "model")
        for sample in map(resolve_sample_attachments, log.samples or [])
    }


@pytest.mark.parametrize(
    "history",
    [
        {"history": "full"},
        {"history": "none"},
        {"history": "rag", "retriever": "bm25", "top_k": 3},
        {"history": "memory", "memory": "support.memories:SpyMemory"},
    ],
)
@pytest.mark.slow  # a run per history
def test_every_history_composes_with_the_choice_answer(
    small_split: Path, tmp_path: Path, history: dict[str, Any]
) -> None:
    """Whatever the source, the last message is the official final user message and
    what comes before it is what the source gave."""
    log = run_task(
        TASK, mock_model(lambda messages: "<final_answer>(a)"), tmp_path,
        {"data_dir": str(small_split), **history},
    )  # fmt: skip
    assert log.samples
    received = sent(log)
    for sample in log.samples:
        messages = received[str(sample.id)]
        assert messages[-1].text == sample.input
        before = messages[:-1]
        end = sample.metadata["end_index_in_shared_context"]
        if history["history"] == "full":
            assert len(before) == end
        elif history["history"] == "none":
            assert before == []
        elif history["history"] == "rag":
            assert 0 < len(before) <= 3
        else:
            assert [m.text for m in before] == [f"# User facts:\nheld {end - 1}"]


@dataclass(frozen=True)
class RecentSettings:
    last_n: int


RECENT: AxisValue[RecentSettings] = AxisValue(
    "recent",
    "the last last_n messages before the question (a test-only source)",
    recent_history,
    RecentSettings,
    parameters=(Parameter("last_n", 10, int, "Messages kept.", minimum=1),),
    label=lambda settings: f"last {settings.last_n} messages",
)


@pytest.mark.report
def test_a_new_source_of_history_is_one_module_and_one_table_entry(
    small_split: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry with a parameter the task's signature does not list: it runs, its
    parameter is checked, and the report labels its runs with its own words."""
    from inspect_personamem.report import build_report

    monkeypatch.setitem(table.HISTORIES, "recent", RECENT)
    model = mock_model(lambda messages: "<final_answer>(a)")
    args = {"data_dir": str(small_split)}
    recent = run_task(TASK, model, tmp_path / "logs", {**args, "history": "recent", "last_n": 7})
    assert recent.eval.task_args["last_n"] == 7
    assert all(len(messages) == 8 for messages in sent(recent).values())
    run_task(TASK, model, tmp_path / "logs", args)
    with pytest.raises(PersonaMemArgumentError, match="last_n=0: must be at least 1"):
        run_task(TASK, model, tmp_path / "bad", {**args, "history": "recent", "last_n": 0})
    with pytest.raises(PersonaMemArgumentError, match=re.escape("last_n have no effect")):
        run_task(TASK, model, tmp_path / "bad", {**args, "last_n": 3})
    report = build_report([tmp_path / "logs"], tmp_path / "report")
    labels = sorted(s.label for s in report.summaries)
    assert labels == [  # generated data: labelled synthetic
        "mockllm/model, full history, synthetic data",
        "mockllm/model, last 7 messages, synthetic data",
    ]
