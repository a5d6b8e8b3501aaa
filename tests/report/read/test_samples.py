"""A question's result read from its sample summaries (`report/read/samples.py`): its
score over the scored epochs, how its answer was read, its tokens and logged cost less a
grader's, its grader's calibration and what a retrieval run's memory did and took."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import (
    EvalSampleSummary,
    read_eval_log,
    read_eval_log_sample_summaries,
    write_eval_log,
)
from inspect_ai.model import ModelUsage
from inspect_ai.scorer import Score
from support.reports import EvidenceLogs, MethodLogs, read_csv

from inspect_personamem.report import build_report
from inspect_personamem.report.errors import ReportError
from inspect_personamem.report.read import samples as read_samples
from inspect_personamem.report.read.logs import read_runs
from inspect_personamem.report.read.samples import (
    Calibration,
    MemoryTime,
    Tokens,
    records_of,
    sample_result,
    unscored,
)

SCORER = "personamem_scorer"
METADATA = {
    "category": "recall_user_shared_facts",
    "topic": "food",
    "distance_to_ref_in_blocks": 3,
    "distance_bin": "2-3",
    "shared_context_id": 7,
}
"""A v1 question's metadata: its groups and the history it shares."""


def summary(
    epoch: int,
    value: Any,
    *,
    status: str = "single",
    answer: str = "(a)",
    used: tuple[int, int, float | None] = (0, 0, 0.0),
    graded: tuple[int, int, float | None] | None = None,
    score_metadata: dict[str, Any] | None = None,
    **metadata: Any,
) -> EvalSampleSummary:
    """Question `q1`'s summary in `epoch`: its score `value`, the answering model's
    usage `used` (input and output tokens, cost) and a grader's `graded`, bound to its
    role (Inspect counts it among the model usage too)."""
    input_tokens, output_tokens, cost = used
    model_usage = {
        "mockllm/model-a": ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
            input_tokens_cache_read=input_tokens // 10,
            total_cost=cost,
        )
    }
    role_usage = {}
    if graded is not None:
        grader = ModelUsage(
            input_tokens=graded[0],
            output_tokens=graded[1],
            total_tokens=graded[0] + graded[1],
            total_cost=graded[2],
        )
        model_usage["mockllm/grader"] = role_usage["grader"] = grader
    return EvalSampleSummary(
        id="q1",
        epoch=epoch,
        input="",
        target="A",
        metadata={**METADATA, **metadata},
        scores={
            SCORER: Score(
                value=value, answer=answer, metadata={"status": status, **(score_metadata or {})}
            )
        },
        model_usage=model_usage,
        role_usage=role_usage,
        working_time=2.0 * epoch,
    )


def test_a_memory_systems_own_tokens_are_read_from_its_samples(
    method_logs: MethodLogs, tmp_path: Path
) -> None:
    """The memory run with what a memory system reports per question grafted in (LLM
    and embedder tokens, and a count that is not tokens); the mock model has no price."""
    log = read_eval_log(method_logs.memory)
    for sample in log.samples or []:
        sample.metadata["memory"]["memory_usage"] = {
            "llm_input_tokens": 7, "llm_output_tokens": 2, "embedding_input_tokens": 3,
            "llm_calls": 5,
        }  # fmt: skip
    write_eval_log(log, str(tmp_path / "memory.json"))
    build_report([tmp_path / "memory.json"], tmp_path / "out")
    [row] = read_csv(tmp_path / "out", "cost")
    assert (row["memory input tokens"], row["memory output tokens"]) == ("10.0", "2.0")
    assert row["USD"] == row["USD per point"] == ""


def test_a_question_is_its_mean_over_the_scored_epochs_less_its_graders_usage() -> None:
    """Three epochs, given out of order: epoch 1 wrong (no letter read), epoch 2 right,
    epoch 3 stopped by a limit (Inspect's unscored NaN) and so left out. The model's
    usage is every model's less the grader's: epoch 1 200 in (20 from a cache), 20 out,
    $0.80; epoch 2 100 in (10 cached), 10 out, $0.40; their means 150 (15 cached), 15,
    $0.60."""
    epochs = [
        summary(3, math.nan, used=(50, 5, 0.2)),
        summary(2, "C", answer="(a)", used=(100, 10, 0.4), graded=(30, 4, 0.1)),
        summary(
            1, "I", status="none", answer="none", used=(200, 20, 0.8), graded=(30, 4, 0.1),
            score_metadata={"calibration_trials": {"x": 1}, "calibration_candidates": 4,
                            "calibration_order_changes": 1},
        ),
    ]  # fmt: skip
    result = sample_result("a.eval", "v1", SCORER, epochs, records_of("a.eval", epochs))
    assert result is not None
    assert (result.id, result.context_id, result.value, result.epochs) == ("q1", "7", 0.5, 2)
    assert result.groups == {
        "category": "recall_user_shared_facts", "topic": "food",
        "distance_to_ref_in_blocks": "3", "distance_bin": "2-3",
    }  # fmt: skip
    assert result.statuses == {"none": 0.5, "single": 0.5}
    assert result.first_epoch_status == "none"
    assert result.answers == {1: "none", 2: "(a)"}
    assert result.tokens == Tokens(uncached_input=150.0, cache_read=15.0, output=15.0)
    assert result.tokens.input == 165.0
    assert result.logged_cost == pytest.approx(0.6)
    assert result.calibration == Calibration(questions=1, candidates=4, order_changes=1)
    assert (result.retrieval, result.memory, result.evidence_located) == (None, None, None)


def test_no_cost_is_logged_where_any_usage_lacks_one_and_no_result_without_a_score() -> None:
    unpriced = [summary(1, "C", used=(100, 10, 0.4), graded=(30, 4, None))]
    result = sample_result("a.eval", "v1", SCORER, unpriced, records_of("a.eval", unpriced))
    assert result is not None and result.logged_cost is None
    stopped = [summary(1, math.nan), summary(2, math.nan)]
    assert sample_result("a.eval", "v1", SCORER, stopped, records_of("a.eval", stopped)) is None
    assert unscored(math.nan) and not unscored(0.0) and not unscored("C")


def test_a_sample_lacking_its_versions_metadata_is_refused_by_name() -> None:
    epochs = [summary(1, "C")]
    del epochs[0].metadata["topic"], epochs[0].metadata["shared_context_id"]
    with pytest.raises(ReportError, match="a.eval: sample q1 lacks metadata field"):
        sample_result("a.eval", "v1", SCORER, epochs, records_of("a.eval", epochs))
    with pytest.raises(ReportError, match="topic, shared_context_id"):
        sample_result("a.eval", "v1", SCORER, epochs, records_of("a.eval", epochs))


def test_a_retrieval_runs_memory_record_is_read_over_its_scored_epochs() -> None:
    """Epoch 1 searched 0.4 s (the run had embedded 12 texts, 3 from the cache), epoch 2
    added two sessions of 0.5 s and searched 0.2 s, blocking the loop 0.05 s at most, and
    its memory reported 7 + 3 input and 2 output tokens: per epoch the memory took 0.4 s
    and 1.2 s (mean 0.8), the samples worked 2 s and 4 s (mean 3), its tokens 5 in and
    1 out. The retrieval and evidence records are the first scored epoch's."""
    first: dict[str, Any] = {
        "memory": {"search_seconds": 0.4, "embedding_counts": {"embedded": 12, "cache_hits": 3}},
        "retrieval": {"status": "found"},
        "evidence": {"located": True, "rule": "the session named"},
    }
    second: dict[str, Any] = {
        "memory": {
            "search_seconds": 0.2, "ingest_seconds": 1.0, "ingest_calls": [0.5, 0.5],
            "loop_blocked_seconds": 0.05, "embedding_counts": {"embedded": 10},
            "memory_usage": {"llm_input_tokens": 7, "embedding_input_tokens": 3,
                             "llm_output_tokens": 2, "llm_calls": 5},
        },
        "retrieval": {"status": "missed"},
        "evidence": {"located": False},
    }  # fmt: skip
    epochs = [summary(2, "C", **second), summary(1, "I", **first)]
    result = sample_result("a.eval", "v1", SCORER, epochs, records_of("a.eval", epochs))
    assert result is not None and result.memory is not None
    assert result.memory.memory == pytest.approx(0.8)
    assert result.memory == MemoryTime(
        searches=(0.4, 0.2),
        adds=(0.5, 0.5),
        memory=result.memory.memory,
        working=3.0,
        loop_blocked=0.05,
        embedding={"embedded": 12, "cache_hits": 3},
    )
    assert (result.tokens.memory_input, result.tokens.memory_output) == (5.0, 1.0)
    assert (result.retrieval, result.evidence_located) == ("found", True)
    assert result.evidence_rule == "the session named"


def test_retrieval_records_are_read_from_the_samples_only_where_a_summary_thinned_them(
    evidence_logs: EvidenceLogs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory record over 1k (a memory system's items are texts) is thinned to text in
    a summary: the report reads it from the sample. The upper bound's records fit, and
    its log is read without a sample."""
    log = read_eval_log(evidence_logs.rag)
    for sample in log.samples or []:
        sample.metadata["memory"]["items"].append({"text": "a fact " * 200, "score": 0.0})
    write_eval_log(log, str(tmp_path / "long.eval"))
    summaries = read_eval_log_sample_summaries(str(tmp_path / "long.eval"))
    assert all(isinstance(s.metadata["memory"], str) for s in summaries)
    [run] = read_runs([tmp_path / "long.eval"]).runs
    by_id = {str(s.id): s.metadata for s in log.samples or []}
    for result in run.samples:
        record = by_id[result.id]
        assert result.memory is not None and result.retrieval == record["retrieval"]["status"]
        assert result.memory.searches == (record["memory"]["search_seconds"],)
        assert result.memory.adds == tuple(record["memory"]["ingest_calls"])
        assert result.evidence_located is record["evidence"]["located"]

    def unread(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("read the samples")

    monkeypatch.setattr(read_samples, "read_eval_log_samples", unread)
    [bound] = read_runs([evidence_logs.evidence]).runs
    assert all(s.evidence_located is not None and s.memory is None for s in bound.samples)


def test_calibration_counts_sum_and_give_their_shares() -> None:
    counts = [Calibration(1, 4, 1, 1), Calibration(1, 4, 0, 0), Calibration()]
    total = Calibration.total(counts)
    assert total == Calibration(questions=2, candidates=8, order_changes=1, separated=1)
    assert (total.position_bias, total.separation) == (1 / 8, 1 / 2)
    assert math.isnan(Calibration().position_bias) and math.isnan(Calibration().separation)
