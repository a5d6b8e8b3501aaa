"""PersonaMem-v3's 31 task types, as data: one `TaskType` each, with its family, its
headline metric key and kind, the raw scale of that metric, and whether a judge gives it.

- Families, names and order: the paper's Figure 4, as the authors' release script lists
  them (`FIG4` in `scripts/export_hf_release.py`, the newest stored copy;
  `../shared/docs/PERSONAMEM_V3.md` section 3). A family here is the paper's, by the
  identifier a task name would carry (`personamem_v3_<family>`), its printed name in
  `FAMILY_NAMES`.
- Headline key and kind: `evaluation/task_registry.py`@8e2a111f (`PRIMARY_METRIC`), the
  newest readable copy (79,073 characters). Older copies differ (03237d09: recall_at_5 /
  recall_at_1 for the ranking tasks, recall@1 for the lifecycle, inverted leak rates for
  the three text over-personalization tasks, tail_passed for the repetition tasks; the
  shared PERSONAMEM_V3.md section 3 still quotes some of those). Where 8e2a111f gives
  `preference_shift_consistency` as 0-10 the shared doc says a 0-3 judge: 8e2a111f is
  followed. `rules.accuracy_value` turns a row's metrics into the authors' 0-100 under
  that key and kind (`task_accuracy`).
- A query row's `task_family` cell holds something else: the pipeline's own grouping
  (`FAMILY_CODES`), which does not map one to one onto the paper's families
  (`e_followup` holds recommendation and personalization tasks alike).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from inspect_personamem.datasets.v3.rules.rules import ScaleKind, accuracy_value

Family = Literal[
    "personalization",
    "recommendation",
    "over_personalization",
    "agentic_tasks",
    "agentic_proactiveness",
]

FAMILY_NAMES: Final[Mapping[Family, str]] = {
    "personalization": "Personalization",
    "recommendation": "Recommendation",
    "over_personalization": "Over-personalization",
    "agentic_tasks": "Agentic tasks",
    "agentic_proactiveness": "Agentic proactiveness",
}
"""The 5 families in Figure 4's order, by identifier, with the paper's name."""
FAMILIES: Final[tuple[Family, ...]] = tuple(FAMILY_NAMES)
"""The 5 family identifiers in Figure 4's order."""


@dataclass(frozen=True)
class TaskType:
    """One task type: its family (Figure 4), its headline metric key and kind
    (task_registry@8e2a111f `PRIMARY_METRIC`), the raw scale of that metric, and
    whether the headline needs an LLM judge."""

    name: str
    family: Family
    metric: str
    """The key of the row's metrics that holds the headline."""
    kind: ScaleKind
    """How `rules.accuracy_value` puts that metric on 0-100."""
    scale: str
    """The metric's raw scale, in words."""
    judged: bool
    """True where a judge gives the headline or part of its inputs (the repetition and
    new-suggestion tasks); False where the reply and the instance alone give it."""


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
    ("chatbot_personalized_response", "personalization",
     "pr_preference_alignment_score", "pref_align_gated", "0-10, 0 on a hard rule", True),
    ("local_recommendation_geo_shift", "personalization",
     "geo_shift_correctness", "fraction", "0 / 0.5 / 1", False),
    ("personal_qa_hallucination", "personalization",
     "abstention_quality_0_10", "0to10", "0-10", True),
    ("hidden_persona_implicit_qa", "personalization",
     "deep_motivation_alignment", "0to3", "0-3", True),
    ("preference_shift_followthrough", "personalization",
     "preference_shift_consistency", "0to10", "0-10", True),
    ("personalized_recommendation", "recommendation", "ndcg_at_5", "fraction", "NDCG", False),
    ("at_ai_directive_followup", "recommendation", "ndcg_at_5", "fraction", "NDCG", False),
    ("hidden_persona_recommendation", "recommendation", "ndcg_at_5", "fraction", "NDCG", False),
    ("short_vs_long_term_lifecycle", "recommendation",
     "lifecycle_score", "signed_unit", "-1..1", False),
    ("new_suggestions_chatbot", "recommendation", "passed", "fraction", "0/1", True),
    ("over_personalization_chatbot_text", "over_personalization", *_PR),
    ("over_personalization_sensitive_event", "over_personalization", *_PR),
    ("over_personalization_repetition_recsys", "over_personalization",
     "query_score_0_10", "0to10", "0-10", True),
    ("over_personalization_repetition_chatbot", "over_personalization",
     "query_score_0_10", "0to10", "0-10", True),
    ("over_personalization_context_shift", "over_personalization", *_PR),
    ("over_personalization_sycophancy", "over_personalization",
     "sycophancy_resistance_0_10", "0to10", "0-10", True),
    ("agentic_community_post", "agentic_tasks", *_PR),
    ("agentic_send_post", "agentic_tasks", *_PR),
    ("agentic_dm_digest", "agentic_tasks", *_PR),
    ("agentic_group_dm_summary", "agentic_tasks", *_PR),
    ("agentic_cross_app_repost", "agentic_tasks", *_PR),
    ("agentic_auto_reply", "agentic_tasks", *_PR),
    ("agentic_vague_refind", "agentic_tasks", *_PR),
    ("agentic_proactive_daily_catchup", "agentic_tasks", *_PR),
    ("agentic_trending_alert", "agentic_tasks", *_PR),
    ("proactive_close_friend_update", "agentic_proactiveness", *_PROACTIVE),
    ("restraint_sensitive_event_silence", "agentic_proactiveness", *_PROACTIVE),
    ("proactive_friend_feed_react", "agentic_proactiveness", *_PROACTIVE),
    ("proactive_trending_feed_react", "agentic_proactiveness", *_PROACTIVE),
    ("active_mistake_prevention", "agentic_proactiveness",
     "paired_correct", "paired_correct", "0/1 per row; paired F1 per set", False),
    ("proactive_overactive_check", "agentic_proactiveness", *_PROACTIVE),
)  # fmt: skip

TASK_TYPES: Final[Mapping[str, TaskType]] = {row[0]: TaskType(*row) for row in _ROWS}
"""The 31 task types in Figure 4's order, by name."""

RANKING_TASKS: Final = frozenset(
    name for name, task in TASK_TYPES.items() if task.metric == "ndcg_at_5"
)
"""The three tasks whose headline is graded NDCG@5 over a slate (`THREE` in the authors'
recompute_ndcg.py@8e2a111f), scored by `ranking`."""

FAMILY_CODES: Final = frozenset(
    {
        "chatbot_response",
        "over_personalization",
        "new_suggestions",
        "personalization",
        "agentic",
        "e_followup",
        "proactive_actions",
        "slate_ranking",
    }
)
"""The values of a query row's `task_family` cell: the pipeline's grouping, every
`task_family` of `TASK_TYPE_META` in `evaluation/task_registry.py` at 03237d09 (with
`slate_ranking`, which its docstring names). Real rows carry them (persona 105's
`personalized_recommendation` rows say `e_followup`); a later registry may add codes."""


def tasks_of(family: Family) -> tuple[str, ...]:
    """The task types of `family`, in Figure 4's order."""
    return tuple(name for name, task in TASK_TYPES.items() if task.family == family)


def task_accuracy(
    task_type: str, metrics: Mapping[str, object], status: str = "ok"
) -> float | None:
    """`rules.accuracy_value` under the task type's headline key and kind (None for a
    task type not in `TASK_TYPES`, as the authors skip an unregistered one)."""
    task = TASK_TYPES.get(task_type)
    return None if task is None else accuracy_value(task.kind, task.metric, metrics, status)
