"""Every history x answer runs under `--batch` with the same per-question results as
without: the real `openai` client, through Inspect's `openai/` provider and its
batcher, against a local stand-in of OpenAI's chat completions and Batch API
(`support.servers.openai_chat`) that answers every request, batched or not, as the
offline oracle would. (`answer=logprob` scores on local models, hf/ or a vLLM server,
which have no batch API: it has nothing to batch.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog
from inspect_ai.model import BatchConfig, GenerateConfig, Model, get_model
from support.helpers import run_task
from support.servers.openai_chat import ChatServer, oracle_answers, serve_chat

from inspect_personamem.datasets.v1.generator import generate_split

TASK = "inspect_personamem/personamem_32k"
MODEL = "openai/gpt-4.1"
BATCH = BatchConfig(send_delay=0.05, tick=0.05)
"""Batches sent and polled every 50 ms (Inspect's defaults: 15 s)."""
QUESTIONS = 8
"""Enough that, right half the time, the stand-in is both right and wrong in every
setting (with 4, all four open answers of the generated data drew wrong)."""
DIRECT = {"POST /v1/chat/completions"}
BATCHED = {
    "POST /v1/files", "POST /v1/batches", "GET /v1/batches/{id}", "GET /v1/files/{id}/content",
}  # fmt: skip

HISTORIES: dict[str, dict[str, Any]] = {
    "full": {},
    "none": {"history": "none"},
    "evidence": {"history": "evidence"},
    "rag": {"history": "rag", "retriever": "bm25", "top_k": 3},
    "memory": {"history": "memory", "memory": "support.memories:SpyMemory"},
}
COMBINATIONS = [
    pytest.param(history, answer, id=f"{history}-{answer}", marks=pytest.mark.slow)
    for history in HISTORIES
    for answer in ("choice", "open")
]  # fmt: skip
"""Every combination, each two runs (one through the stand-in Batch API server): slow,
all of them (each about 1.5 s on an idle machine, an open one 3.5 s)."""


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("batch") / "data"
    generate_split(folder, "32k", contexts=3, min_messages=30, max_messages=60, questions=24)
    return folder


@pytest.fixture(scope="module")
def server(data: Path) -> Iterator[ChatServer]:
    """The stand-in, right half the time, so that answers mixed up between questions
    would show."""
    with serve_chat(oracle_answers(data / "questions_32k.csv", accuracy=0.5)) as chat:
        yield chat


def model(server: ChatServer, batch: BatchConfig | None) -> Model:
    return get_model(
        MODEL, base_url=server.url, api_key="stand-in", memoize=False,
        config=GenerateConfig(batch=batch),
    )  # fmt: skip


def results(log: EvalLog) -> dict[str, tuple[object, object]]:
    """Each question's score value and answer."""
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == QUESTIONS
    scored: dict[str, tuple[object, object]] = {}
    for sample in log.samples:
        assert sample.scores is not None
        (score,) = sample.scores.values()
        scored[str(sample.id)] = (score.value, score.answer)
    return scored


def run(
    server: ChatServer,
    data: Path,
    folder: Path,
    args: dict[str, Any],
    batch: BatchConfig | None,
    grader_batched: bool = True,
) -> tuple[EvalLog, set[str]]:
    """A run of the first questions, the model batched or not (and an open answer's
    grader, bound to the same stand-in, likewise unless `grader_batched` is false); its
    log and the requests the stand-in received."""
    since = len(server.calls)
    graded = model(server, batch if grader_batched else None)
    roles = {"grader": graded} if args.get("answer") == "open" else None
    log = run_task(
        TASK, model(server, None), folder, {"data_dir": str(data), **args},
        limit=QUESTIONS, batch=batch, model_roles=roles,
    )  # fmt: skip
    return log, server.paths(since)


@pytest.mark.parametrize(("history", "answer"), COMBINATIONS)
def test_a_batched_run_scores_every_question_as_a_direct_run(
    server: ChatServer, data: Path, tmp_path: Path, history: str, answer: str
) -> None:
    args = {**HISTORIES[history], "answer": answer}
    direct, direct_calls = run(server, data, tmp_path / "direct", args, None)
    batched, batched_calls = run(server, data, tmp_path / "batched", args, BATCH)
    assert direct_calls == DIRECT
    assert batched_calls == BATCHED  # the grader's calls too
    assert results(batched) == results(direct)
    assert {value for value, _ in results(direct).values()} == {"C", "I"}


@pytest.mark.slow  # about Inspect more than this package
def test_batch_reaches_a_grader_only_through_its_own_config(
    server: ChatServer, data: Path, tmp_path: Path
) -> None:
    """`--batch` is the model under test's: a model bound to a role inherits no batch
    setting (Inspect passes roles only the connection settings), so a grader without
    one of its own grades directly."""
    args = {"history": "none", "answer": "open"}
    _, calls = run(server, data, tmp_path, args, BATCH, grader_batched=False)
    assert calls == BATCHED | DIRECT


@pytest.mark.slow  # three runs
def test_eval_retry_runs_a_batched_runs_failed_questions_batched(
    server: ChatServer, data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch whose requests fail: those questions end in an error; `eval-retry` of the
    log runs them again, batched (the log keeps `batch` in its generation config), and
    the retried log scores every question as a direct run does."""
    monkeypatch.setenv("OPENAI_API_KEY", "stand-in")  # a retry makes the model anew
    direct, _ = run(server, data, tmp_path / "direct", {}, None)
    server.failing = True
    failed = run_task(
        TASK, model(server, None), tmp_path / "failed", {"data_dir": str(data)},
        limit=QUESTIONS, batch=BATCH, fail_on_error=False, max_retries=0,
    )  # fmt: skip
    server.failing = False
    assert failed.samples and all(sample.error for sample in failed.samples)
    since = len(server.calls)
    (retried,) = eval_retry(failed, log_dir=str(tmp_path / "retried"), display="log")
    assert server.paths(since) == BATCHED
    assert retried.plan.config.batch == BATCH
    assert results(retried) == results(direct)
