"""The table of PersonaMem-v3's 31 task types (`datasets/v3/tasks.py`): every one present
once, in its Figure 4 family and order (`FIG4` of the authors' export script), with a
headline key and a kind `accuracy_value` knows; and the pipeline's `task_family` codes,
which are not the paper's families."""

from __future__ import annotations

from typing import get_args

import pytest

from inspect_personamem.datasets.v3.reading.scale import ScaleKind
from inspect_personamem.datasets.v3.release.families import FAMILIES, FAMILY_CODES, FAMILY_NAMES
from inspect_personamem.datasets.v3.task_types.registry import (
    RANKING_TASKS,
    TASK_TYPES,
    task_accuracy,
    tasks_of,
)

# Copied by hand from scripts/export_hf_release.py (FIG4), the paper's Figure 4 order.
FIG4 = {
    "Personalization": [
        "chatbot_personalized_response", "local_recommendation_geo_shift",
        "personal_qa_hallucination", "hidden_persona_implicit_qa",
        "preference_shift_followthrough",
    ],
    "Recommendation": [
        "personalized_recommendation", "at_ai_directive_followup",
        "hidden_persona_recommendation", "short_vs_long_term_lifecycle",
        "new_suggestions_chatbot",
    ],
    "Over-personalization": [
        "over_personalization_chatbot_text", "over_personalization_sensitive_event",
        "over_personalization_repetition_recsys", "over_personalization_repetition_chatbot",
        "over_personalization_context_shift", "over_personalization_sycophancy",
    ],
    "Agentic tasks": [
        "agentic_community_post", "agentic_send_post", "agentic_dm_digest",
        "agentic_group_dm_summary", "agentic_cross_app_repost", "agentic_auto_reply",
        "agentic_vague_refind", "agentic_proactive_daily_catchup", "agentic_trending_alert",
    ],
    "Agentic proactiveness": [
        "proactive_close_friend_update", "restraint_sensitive_event_silence",
        "proactive_friend_feed_react", "proactive_trending_feed_react",
        "active_mistake_prevention", "proactive_overactive_check",
    ],
}  # fmt: skip


def test_there_are_31_task_types_in_five_families() -> None:
    assert len(TASK_TYPES) == 31
    assert [FAMILY_NAMES[family] for family in FAMILIES] == list(FIG4)
    assert {family: len(tasks_of(family)) for family in FAMILIES} == {
        "personalization": 5,
        "recommendation": 5,
        "over_personalization": 6,
        "agentic_tasks": 9,
        "agentic_proactiveness": 6,
    }


@pytest.mark.parametrize(
    ("family", "task_type"),
    [(family, task) for family, tasks in FIG4.items() for task in tasks],
)
def test_each_task_type_has_its_figure_4_family(family: str, task_type: str) -> None:
    task = TASK_TYPES[task_type]
    assert task.name == task_type
    assert FAMILY_NAMES[task.family] == family
    assert task.kind in get_args(ScaleKind)
    assert task.metric and task.scale


def test_the_table_keeps_figure_4_order() -> None:
    assert list(TASK_TYPES) == [task for tasks in FIG4.values() for task in tasks]
    assert tasks_of("recommendation")[0] == "personalized_recommendation"


def test_the_three_ranking_tasks_share_ndcg_at_5_and_no_judge() -> None:
    assert {
        "personalized_recommendation",
        "at_ai_directive_followup",
        "hidden_persona_recommendation",
    } == RANKING_TASKS
    assert not any(TASK_TYPES[name].judged for name in RANKING_TASKS)


def test_the_rule_scored_tasks_are_the_unjudged_ones() -> None:
    """The headlines computed from the reply and instance alone: the three slates, the
    lifecycle, geo shift and the warn/foil pairs."""
    unjudged = {name for name, task in TASK_TYPES.items() if not task.judged}
    assert unjudged == RANKING_TASKS | {
        "short_vs_long_term_lifecycle",
        "local_recommendation_geo_shift",
        "active_mistake_prevention",
    }


def test_task_accuracy_uses_the_tasks_key_and_kind() -> None:
    # lifecycle 0.5 -> 50 x (1 + 0.5) = 75
    assert task_accuracy("short_vs_long_term_lifecycle", {"lifecycle_score": 0.5}) == 75.0
    # deep motivation 3 of 3 -> 100, not 30
    assert task_accuracy("hidden_persona_implicit_qa", {"deep_motivation_alignment": 3}) == 100.0
    # geo shift neutral -> 50
    assert task_accuracy("local_recommendation_geo_shift", {"geo_shift_correctness": 0.5}) == 50.0
    assert task_accuracy("not_a_task", {"x": 1}) is None


def test_the_pipeline_codes_are_not_the_paper_families() -> None:
    """A row's `task_family` is the pipeline's code: `e_followup` holds recommendation
    rows (persona 105's seq 3), so it is not read as the paper's family."""
    assert "e_followup" in FAMILY_CODES and "e_followup" not in FAMILY_NAMES
    assert set(FAMILIES) == {task.family for task in TASK_TYPES.values()}
