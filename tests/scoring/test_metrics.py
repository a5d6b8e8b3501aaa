from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai.scorer import CORRECT, INCORRECT, SampleScore, Score
from inspect_ai.util import registry_info
from support.helpers import mock_model, run_task

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.question_types import CATEGORIES
from inspect_personamem.scoring.metrics import (
    evidence_located,
    evidence_retrieval,
    memory_latency,
    tool_use,
    unparsed,
)


def sample_score(
    correct: bool, context: str, category: str, topic: str, sessions: int, status: str = "single"
) -> SampleScore:
    return SampleScore(
        score=Score(value=CORRECT if correct else INCORRECT, metadata={"status": status}),
        sample_id=f"{context}-{category}-{sessions}-{correct}",
        sample_metadata={
            "shared_context_id": context,
            "category": category,
            "topic": topic,
            "distance_to_ref_in_blocks": sessions,
            "distance_bin": "1" if sessions == 1 else "2-3",
        },
    )


SCORES = [
    sample_score(True, "A", "suggest_new_ideas", "therapy", 1),
    sample_score(True, "A", "suggest_new_ideas", "therapy", 2),
    sample_score(True, "A", "recall_user_shared_facts", "therapy", 3),
    sample_score(False, "B", "recall_user_shared_facts", "travel", 1, status="none"),
    sample_score(False, "B", "recall_user_shared_facts", "travel", 2, status="multiple"),
    sample_score(False, "B", "suggest_new_ideas", "travel", 3),
]


def compute() -> dict[str, float]:
    values: dict[str, float] = {}
    for metric in VERSIONS["v1"].metrics("chosen"):
        result: Any = cast(Any, metric)(SCORES)
        if isinstance(result, dict):
            values.update(result)
        else:
            values[registry_info(metric).name.split("/")[-1]] = result
    return values


def test_metric_values_on_known_scores() -> None:
    values = compute()
    assert values["accuracy"] == 0.5
    assert values["unparsed"] == 2 / 6
    assert values["category_suggest_new_ideas"] == 2 / 3
    assert values["category_recall_user_shared_facts"] == 1 / 3
    assert values["category_macro"] == 0.5
    assert values["topic_therapy"] == 1.0 and values["topic_travel"] == 0.0
    # named so that the viewer, which strips a breakdown's trailing digits, keeps them apart
    assert values["sessions_1_ago"] == 0.5 and values["sessions_2_ago"] == 0.5
    assert values["sessions_bin_1_ago"] == 0.5 and values["sessions_bin_2-3_ago"] == 0.5
    assert not [name for name in values if name[-1].isdigit()]
    # the interval over the two histories (A: 3 right, B: 3 wrong): Inspect's Wilson's
    # with t(1) at the unadjusted 6 (p(1 - p) / stderr^2 = 1 for the 6): wide, in [0, 1]
    assert 0.0 <= values["ci_low"] < 0.5 < values["ci_high"] <= 1.0
    assert list(values)[:4] == ["accuracy", "ci_low", "ci_high", "stderr"]


def test_stderr_is_clustered_by_shared_context() -> None:
    # two clusters, deviations +1.5 and -1.5 around the mean 0.5:
    # sqrt((1.5^2 + 1.5^2) * 2 / 1) / 6 = 0.5; an unclustered stderr would be 0.224
    assert math.isclose(compute()["stderr"], 0.5)


def test_macro_average_weights_categories_equally() -> None:
    lopsided = SCORES + [sample_score(True, "C", "suggest_new_ideas", "food", 4) for _ in range(6)]
    values: dict[str, float] = {}
    category = VERSIONS["v1"].group_metrics()[0]
    assert callable(category)
    values.update(cast(Any, category)(lopsided))
    assert values["category_suggest_new_ideas"] == 8 / 9
    assert values["category_macro"] == (8 / 9 + 1 / 3) / 2


def test_unparsed_of_no_scores_is_nan() -> None:
    assert math.isnan(cast(Any, unparsed())([])["unparsed"])


@pytest.mark.slow  # an end-to-end run
def test_groups_are_stored_in_order_in_a_real_log(tmp_path: Path) -> None:
    """`inspect view` shows the metrics in the log's order: sessions by number (10 after
    9, not after 1), categories in the paper's order with their macro average last."""
    data = tmp_path / "data"
    generate_split(
        data, "32k", contexts=3, min_messages=60, max_messages=80, questions=40, sessions=12
    )
    log = run_task(
        "inspect_personamem/personamem_32k",
        mock_model(lambda messages: "<final_answer>(a)"),
        tmp_path / "logs",
        {"data_dir": str(data)},
    )
    assert log.results is not None
    names = list(log.results.scores[0].metrics)
    sessions = [int(n.split("_")[1]) for n in names if re.fullmatch(r"sessions_\d+_ago", n)]
    assert len(sessions) >= 10 and max(sessions) >= 10
    assert sessions == sorted(sessions)
    bins = [n.split("_")[2] for n in names if n.startswith("sessions_bin_")]
    assert [int(b.split("-")[0]) for b in bins] == sorted(int(b.split("-")[0]) for b in bins)
    categories = [n.removeprefix("category_") for n in names if n.startswith("category_")]
    assert categories[-1] == "macro"
    assert categories[:-1] == [key for key in CATEGORIES if key in categories]
    topics = [n for n in names if n.startswith("topic_")]
    assert topics == sorted(topics)


def retrieval_score(
    status: str, rank: int | None, recall: float | None, **memory: Any
) -> SampleScore:
    """A score carrying what a retrieval run's scorer copies from the state
    (`history_record`), which is where the metrics read it."""
    return SampleScore(
        score=Score(
            value=CORRECT,
            metadata={
                "evidence": {"located": status != "not_located"},
                "retrieval": {"status": status, "first_rank": rank, "recall": recall},
                "memory": memory,
            },
        ),
        sample_id=f"{status}-{rank}",
    )


def test_recall_counts_only_questions_it_can_check() -> None:
    scores = [
        retrieval_score("found", 1, 1.0),
        retrieval_score("found", 4, 0.5),
        retrieval_score("missed", None, 0.0),
        retrieval_score("unpositioned", None, None),
        retrieval_score("not_located", None, None),
        retrieval_score("not_located", None, None),
    ]
    values = cast(dict[str, float], cast(Any, evidence_retrieval())(scores))
    assert values["evidence_found"] == 2 / 3
    assert values["evidence_recall"] == 0.5
    assert values["evidence_mrr"] == (1 + 1 / 4) / 3
    assert values["evidence_unpositioned"] == 1
    assert cast(Any, evidence_located())(scores) == {"evidence_not_located": 2}
    nothing = cast(dict[str, float], cast(Any, evidence_retrieval())([]))
    assert math.isnan(nothing["evidence_found"]) and nothing["evidence_unpositioned"] == 0


def test_latency_quantiles_are_per_search_and_per_add_call() -> None:
    scores = [
        retrieval_score("found", 1, 1.0, search_seconds=s, ingest_calls=calls)
        for s, calls in ((0.1, [1.0, 2.0]), (0.2, []), (0.3, [3.0]), (0.4, []))
    ]
    values = cast(dict[str, float], cast(Any, memory_latency())(scores))
    assert values["memory_search_p50"] == 0.25
    assert math.isclose(values["memory_search_p95"], 0.385)
    assert values["memory_add_p50"] == 2.0 and math.isclose(values["memory_add_p95"], 2.9)


def test_tool_use_is_per_question_and_its_errors_over_the_run() -> None:
    counts = ((2, 0, 900), (6, 3, 5000), (0, 0, 0), (7, 1, 100))  # calls, errors, characters
    scores = [
        SampleScore(
            score=Score(
                value=CORRECT,
                metadata={"tools": {"budget": 6, "asked": a, "errors": e, "chars_read": c}},
            ),
            sample_id=str(number),
        )
        for number, (a, e, c) in enumerate(counts)
    ]
    values = cast(dict[str, float], cast(Any, tool_use())(scores))
    assert values == {
        "tool_calls": 15 / 4,
        "tool_chars_read": 6000 / 4,
        "tool_errors": 4,
        "tool_budget_spent": 2 / 4,
    }
