"""The report tests' fixtures: the logs they read (made once per test session, per
worker), the report of them, and the synthetic split standing in for the released
one. What they share besides is in `support/reports.py`."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import match
from support.helpers import mock_model, tool_calling_model
from support.reports import (
    CONTEXTS,
    QUESTIONS,
    EvidenceLogs,
    Logs,
    MethodLogs,
    hashed_answer,
    run,
    searching_answer,
)

from inspect_personamem.cli import main
from inspect_personamem.data.release import RELEASED
from inspect_personamem.datasets.v1 import files
from inspect_personamem.datasets.v1.generator import generate_split

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of this folder reads logs and draws the report: marked `report`, so
    that it is skipped, with the reason, where the report extra is not installed (the
    modules that import the figures at their top skip themselves without it)."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.report)


@contextmanager
def released_stand_in() -> Iterator[None]:
    """The synthetic splits these runs ask stand in for the released files: their runs
    are recorded as on the released data (the mark of other data is tested by grafting
    it into a log, and the check itself in test_files.py). Only while the runs are made:
    the tests of other folders that share a worker see the real check."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "data_release", lambda *args: RELEASED)
        yield


@pytest.fixture(autouse=True, scope="package")
def synthetic_data_stands_for_the_release() -> Iterator[None]:
    """The report tests' own runs stand in for the released data (set up for this
    folder's tests, torn down after them)."""
    with released_stand_in():
        yield


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    with released_stand_in():
        return _logs(tmp_path_factory)


def _logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    root = tmp_path_factory.mktemp("report")
    data, folder = root / "data", root / "logs"
    generate_split(
        data, "128k", contexts=CONTEXTS, min_messages=20, max_messages=30, questions=QUESTIONS
    )
    locations: dict[str, str] = {}

    def add(key: str, reply: Callable[[list[ChatMessage]], str], model: str, **kw: Any) -> None:
        locations[key] = run(mock_model(reply, f"mockllm/{model}"), folder, data, **kw)

    def model_a(messages: list[ChatMessage]) -> str:
        return hashed_answer("a", messages)

    add("a_full", model_a, "model-a")
    add("a_none", model_a, "model-a", task_args={"history": "none"})

    calls = {"b": 0}

    def model_b(messages: list[ChatMessage]) -> str:
        calls["b"] += 1  # differs between epochs
        return hashed_answer("b", messages, salt=str(calls["b"]))

    add("b_epochs", model_b, "model-b", epochs=2)

    def model_a_failing(messages: list[ChatMessage]) -> str:
        if hashed_answer("fail", messages).endswith("(a)"):
            raise RuntimeError("provider error")
        return model_a(messages)

    add("a_errors", model_a_failing, "model-a", fail_on_error=False)

    interrupted = {"calls": 0}

    def model_b_interrupted(messages: list[ChatMessage]) -> str:
        interrupted["calls"] += 1
        if interrupted["calls"] == 9:
            raise RuntimeError("connection lost")
        return model_b(messages)

    add("b_interrupted", model_b_interrupted, "model-b", max_samples=1, max_connections=1)
    other = Task(dataset=[Sample(input="Say x", target="x")], scorer=match(), name="other_task")
    [other_log] = inspect_eval(
        other,
        model=mock_model(lambda messages: "x", "mockllm/model-a"),
        log_dir=str(folder),
        display="none",
    )
    locations["other"] = str(other_log.location)
    return Logs(folder, data, locations)


@pytest.fixture(scope="session")
def report_dir(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out") / "report"
    code = main(
        [
            "report",
            str(logs.folder),
            "--out",
            str(out),
            "--published-name",
            "mockllm/model-a=GPT-4o",
            "--title",
            "mockllm test run",
        ]
    )
    assert code == 0
    return out


@pytest.fixture(scope="session")
def method_logs(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> MethodLogs:
    with released_stand_in():
        return _method_logs(logs, tmp_path_factory)


def _method_logs(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> MethodLogs:
    folder = tmp_path_factory.mktemp("methods")
    for key in ("a_full", "a_none"):
        shutil.copy(logs.locations[key], folder / f"{key}.eval")
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    rag = run(
        model, folder, logs.data, task_args={"history": "rag", "retriever": "bm25", "top_k": 4}
    )
    memory_args = {"history": "memory", "memory": "support.memories:SpyMemory"}
    memory = run(model, folder, logs.data, task_args=memory_args)
    return MethodLogs(folder, rag, memory)


@pytest.fixture(scope="session")
def evidence_logs(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> EvidenceLogs:
    with released_stand_in():
        return _evidence_logs(logs, tmp_path_factory)


def _evidence_logs(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> EvidenceLogs:
    folder = tmp_path_factory.mktemp("evidence")
    full = folder / "a_full.eval"
    shutil.copy(logs.locations["a_full"], full)
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    evidence = run(model, folder, logs.data, task_args={"history": "evidence"})
    rag_args = {"history": "rag", "retriever": "bm25", "top_k": 4}
    rag = run(model, folder, logs.data, task_args=rag_args)
    memory_args = {"history": "memory", "memory": "support.memories:SleepingMemory"}
    memory = run(model, folder, logs.data, task_args=memory_args)
    searching = tool_calling_model(searching_answer, "mockllm/model-a")
    tools = run(
        searching,
        tmp_path_factory.mktemp("tools"),
        logs.data,
        task_args={"history": "tools", "top_k": 4},  # as many items as the rag run's
    )
    return EvidenceLogs(folder, str(full), evidence, rag, memory, tools)
