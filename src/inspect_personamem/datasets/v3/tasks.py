"""The 31 PersonaMem-v3 task types: family, headline metric key and kind, raw scale.

Families and their order: the paper's Figure 4 (scripts/export_hf_release.py, `FIG4`,
newest stored copy). Headline key and kind: evaluation/task_registry.py@8e2a111f
(`PRIMARY_METRIC`), the newest readable copy (79,073 characters). Older copies differ
(03237d09: recall_at_5 / recall_at_1 for the ranking tasks, recall@1 for the lifecycle,
inverted leak rates for the three text over-personalization tasks, tail_passed for the
repetition tasks; the shared PERSONAMEM_V3.md §3 still quotes some of those). Where
8e2a111f gives `preference_shift_consistency` as 0-10 the shared doc says a 0-3 judge:
8e2a111f is followed. `rules.accuracy_value` turns a row's metrics into the authors'
0-100 under that key and kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from inspect_personamem.datasets.v3.rules import ScaleKind, accuracy_value

Family = Literal[
    "Personalization",
    "Recommendation",
    "Over-personalization",
    "Agentic tasks",
    "Agentic proactiveness",
]
FAMILIES: Final[tuple[Family, ...]] = (
    "Personalization",
    "Recommendation",
    "Over-personalization",
    "Agentic tasks",
    "Agentic proactiveness",
)
"""The five families in the paper's Figure 4 order (scripts/export_hf_release.py, FIG4)."""


@dataclass(frozen=True)
class TaskType:
    """One task type: its family (Figure 4), its headline metric key and kind
    (task_registry@8e2a111f `PRIMARY_METRIC`), and the raw scale of that metric."""

    name: str
    family: Family
    key: str
    kind: ScaleKind
    scale: str
    judged: bool


_PR: Final[tuple[str, ScaleKind, str, bool]] = (
    "pr_combined_personalization_score",
    "pr_combined",
    "0..max (3 per + dim)",
    True,
)
_PROACTIVE: Final[tuple[str, ScaleKind, str, bool]] = (
    "proactive_action_score",
    "fraction",
    "0-1",
    True,
)
_ROWS: Final[tuple[tuple[str, Family, str, ScaleKind, str, bool], ...]] = (
    ("chatbot_personalized_response", "Personalization",
     "pr_preference_alignment_score", "pref_align_gated", "0-10, 0 on a hard rule", True),
    ("local_recommendation_geo_shift", "Personalization",
     "geo_shift_correctness", "fraction", "0 / 0.5 / 1", False),
    ("personal_qa_hallucination", "Personalization",
     "abstention_quality_0_10", "0to10", "0-10", True),
    ("hidden_persona_implicit_qa", "Personalization",
     "deep_motivation_alignment", "0to3", "0-3", True),
    ("preference_shift_followthrough", "Personalization",
     "preference_shift_consistency", "0to10", "0-10", True),
    ("personalized_recommendation", "Recommendation", "ndcg_at_5", "fraction", "NDCG", False),
    ("at_ai_directive_followup", "Recommendation", "ndcg_at_5", "fraction", "NDCG", False),
    ("hidden_persona_recommendation", "Recommendation", "ndcg_at_5", "fraction", "NDCG", False),
    ("short_vs_long_term_lifecycle", "Recommendation",
     "lifecycle_score", "signed_unit", "-1..1", False),
    ("new_suggestions_chatbot", "Recommendation", "passed", "fraction", "0/1", True),
    ("over_personalization_chatbot_text", "Over-personalization", *_PR),
    ("over_personalization_sensitive_event", "Over-personalization", *_PR),
    ("over_personalization_repetition_recsys", "Over-personalization",
     "query_score_0_10", "0to10", "0-10", True),
    ("over_personalization_repetition_chatbot", "Over-personalization",
     "query_score_0_10", "0to10", "0-10", True),
    ("over_personalization_context_shift", "Over-personalization", *_PR),
    ("over_personalization_sycophancy", "Over-personalization",
     "sycophancy_resistance_0_10", "0to10", "0-10", True),
    ("agentic_community_post", "Agentic tasks", *_PR),
    ("agentic_send_post", "Agentic tasks", *_PR),
    ("agentic_dm_digest", "Agentic tasks", *_PR),
    ("agentic_group_dm_summary", "Agentic tasks", *_PR),
    ("agentic_cross_app_repost", "Agentic tasks", *_PR),
    ("agentic_auto_reply", "Agentic tasks", *_PR),
    ("agentic_vague_refind", "Agentic tasks", *_PR),
    ("agentic_proactive_daily_catchup", "Agentic tasks", *_PR),
    ("agentic_trending_alert", "Agentic tasks", *_PR),
    ("proactive_close_friend_update", "Agentic proactiveness", *_PROACTIVE),
    ("restraint_sensitive_event_silence", "Agentic proactiveness", *_PROACTIVE),
    ("proactive_friend_feed_react", "Agentic proactiveness", *_PROACTIVE),
    ("proactive_trending_feed_react", "Agentic proactiveness", *_PROACTIVE),
    ("active_mistake_prevention", "Agentic proactiveness",
     "paired_correct", "paired_correct", "0/1 per row; paired F1 per set", False),
    ("proactive_overactive_check", "Agentic proactiveness", *_PROACTIVE),
)  # fmt: skip

TASK_TYPES: Final[Mapping[str, TaskType]] = {row[0]: TaskType(*row) for row in _ROWS}
"""The 31 task types in Figure 4 order. `judged` marks a headline that needs an LLM
judge (the rest are computed from the reply and the instance alone); for the repetition
and new-suggestion tasks the judge supplies part of the inputs."""


def task_accuracy(
    task_type: str, metrics: Mapping[str, object], status: str = "ok"
) -> float | None:
    """`accuracy_value` under the task type's headline key and kind (None for a task
    type not in `TASK_TYPES`, as the authors skip an unregistered one)."""
    spec = TASK_TYPES.get(task_type)
    return None if spec is None else accuracy_value(spec.kind, spec.key, metrics, status)
