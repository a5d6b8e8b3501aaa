"""`history=evidence` sends exactly the evidence, and a retrieval run's recall and
latency reach its log and its metrics, on the generated data of both versions."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessage
from support.evidence import located
from support.helpers import mock_model, run_task
from support.memories import SleepingMemory

from inspect_personamem.data.asked import AskedAt

TASKS = {"v1": "inspect_personamem/personamem_32k", "v2": "inspect_personamem/personamem_v2_32k"}
GRADER = "Candidate 1 <final>1</final>"
"""A grader's verdict (v1's grader names a candidate, v2's judge gives a score)."""


@pytest.fixture
def data(version: str, request: pytest.FixtureRequest) -> Path:
    """The small generated data of the test's `version` (`small_split`, `small_v2`)."""
    return Path(request.getfixturevalue("small_split" if version == "v1" else "small_v2"))


def run(version: str, data: Path, log_dir: Path, **task_args: Any) -> EvalLog:
    log = run_task(
        TASKS[version],
        mock_model(lambda messages: "My answer is <final_answer>(a)"),
        log_dir,
        {"data_dir": str(data), **task_args},
        model_roles={"grader": mock_model(lambda messages: GRADER, "mockllm/grader")},
    )
    assert log.status == "success", log.error
    assert log.samples
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def sent(log: EvalLog) -> dict[str, list[tuple[str, str]]]:
    """Per sample, the messages the model under test was sent (not the grader)."""
    found = {}
    for sample in map(resolve_sample_attachments, log.samples or []):
        [call] = [e for e in sample.events if e.event == "model" and e.model == "mockllm/model"]
        found[str(sample.id)] = pairs(call.input)
    return found


def pairs(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]


@pytest.mark.parametrize("answer", ["choice", "open"])
@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.slow  # an end-to-end run
def test_the_model_is_sent_the_evidence_then_the_question(
    version: str, answer: str, data: Path, tmp_path: Path
) -> None:
    """v1: the session the rule locates (holding the question's own message); v2: the
    persona card, then the snippet; then the question as a run without history asks it."""
    evidence = located(version, data)
    shown = sent(run(version, data, tmp_path / "evidence", history="evidence", answer=answer))
    alone = sent(run(version, data, tmp_path / "none", history="none", answer=answer))
    assert set(shown) == set(alone) == set(evidence)
    for sample_id, (metadata, found) in evidence.items():
        assert found.located
        assert shown[sample_id] == pairs(found.shown) + alone[sample_id]
        if version == "v1":
            assert found.shown[0].role == "system"  # the session's persona message
            assert any(metadata["question_id"] in m.text for m in found.shown)
        else:
            snippet = metadata["related_conversation_snippet"]
            assert pairs(found.shown[1:]) == [(m["role"], m["content"]) for m in snippet]


def memory_run(version: str, data: Path, log_dir: Path, memory: str, **config: Any) -> EvalLog:
    path = log_dir.parent / f"{log_dir.name}-config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return run(
        version,
        data,
        log_dir,
        history="memory",
        memory=f"support.memories:{memory}",
        memory_config=str(path),
    )


def snippets(data: Path) -> dict[str, list[str]]:
    """Each v2 query -> its snippet's texts: what `EvidenceMemory` returns for it."""
    return {
        AskedAt.of(metadata).message: [
            m["content"] for m in metadata["related_conversation_snippet"]
        ]
        for metadata, _ in located("v2", data).values()
    }


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.slow  # an end-to-end run
def test_a_memory_returning_exactly_the_evidence_finds_all_of_it(
    version: str, data: Path, tmp_path: Path
) -> None:
    config = {"snippets": snippets(data)} if version == "v2" else {}
    log = memory_run(version, data, tmp_path / "logs", "EvidenceMemory", **config)
    values = metrics(log)
    assert (values["evidence_found"], values["evidence_recall"], values["evidence_mrr"]) == (
        1.0,
        1.0,
        1.0,
    )
    assert values["evidence_unpositioned"] == values["evidence_not_located"] == 0
    assert {s.metadata["retrieval"]["status"] for s in log.samples or []} == {"found"}


@pytest.mark.slow  # an end-to-end run
def test_a_memory_returning_the_questions_own_session_finds_only_evidence_there(
    small_split: Path, tmp_path: Path
) -> None:
    """The last message before the question lies in its own session: the evidence of a
    question at `distance_to_ref_in_blocks` 1 (its own session the first), of no other."""
    log = memory_run("v1", small_split, tmp_path / "logs", "LastMessageMemory")
    samples = log.samples or []
    own = sum(s.metadata["distance_to_ref_in_blocks"] == 1 for s in samples)
    assert 0 < own < len(samples)
    for sample in samples:
        found = sample.metadata["distance_to_ref_in_blocks"] == 1
        assert sample.metadata["retrieval"]["status"] == ("found" if found else "missed")
    values = metrics(log)
    assert values["evidence_found"] == values["evidence_mrr"] == own / len(samples)


@pytest.mark.slow  # an end-to-end run
def test_items_without_positions_are_counted_apart_never_as_misses(
    small_split: Path, tmp_path: Path
) -> None:
    log = memory_run("v1", small_split, tmp_path / "logs", "SpyMemory")
    values = metrics(log)
    assert values["evidence_unpositioned"] == len(log.samples or []) == 24
    assert all(math.isnan(values[name]) for name in ("evidence_found", "evidence_recall"))


@pytest.mark.slow  # an end-to-end run
def test_a_memorys_add_and_search_times_reach_the_log_and_the_metrics(
    small_split: Path, tmp_path: Path
) -> None:
    seconds = SleepingMemory.SLEEP
    log = memory_run("v1", small_split, tmp_path / "logs", "SleepingMemory")
    values = metrics(log)
    assert values["memory_search_p50"] >= seconds and values["memory_add_p50"] >= seconds
    calls = 0
    for sample in log.samples or []:
        memory = sample.metadata["memory"]
        assert memory["search_seconds"] >= seconds
        assert all(call >= seconds for call in memory["ingest_calls"])
        calls += len(memory["ingest_calls"])
    assert calls > 0


@pytest.mark.slow  # an end-to-end run
def test_bm25_finds_most_questions_evidence_on_generated_v1_data(
    small_split: Path, tmp_path: Path
) -> None:
    """Measured: it finds all 24 here (and all 589 of the 32k shape), each ranked first:
    the message stating the question shares its words."""
    log = run("v1", small_split, tmp_path / "logs", history="rag", retriever="bm25")
    values = metrics(log)
    assert values["evidence_found"] >= 0.8
    assert values["evidence_not_located"] == 0
