"""PersonaMem-v3's 31 task types in its 5 families, as data.

Names and order are the paper's Figure 4, as the authors' release script lists them
(`FIG4` in `scripts/export_hf_release.py`, the newest-looking stored version;
`../shared/docs/PERSONAMEM_V3.md` section 3). A family here is the paper's; a query
row's `task_family` cell holds something else, the pipeline's own grouping
(`FAMILY_CODES`), which does not map one to one onto the paper's (`e_followup` holds
recommendation and personalization tasks alike).
"""

from __future__ import annotations

from typing import Final, Literal

Family = Literal[
    "personalization",
    "recommendation",
    "over_personalization",
    "agentic_tasks",
    "agentic_proactiveness",
]

FAMILY_NAMES: Final[dict[Family, str]] = {
    "personalization": "Personalization",
    "recommendation": "Recommendation",
    "over_personalization": "Over-personalization",
    "agentic_tasks": "Agentic tasks",
    "agentic_proactiveness": "Agentic proactiveness",
}
"""The 5 families, by the identifier a task name would carry, with the paper's name."""

TASK_TYPES: Final[dict[str, Family]] = {
    "chatbot_personalized_response": "personalization",
    "local_recommendation_geo_shift": "personalization",
    "personal_qa_hallucination": "personalization",
    "hidden_persona_implicit_qa": "personalization",
    "preference_shift_followthrough": "personalization",
    "personalized_recommendation": "recommendation",
    "at_ai_directive_followup": "recommendation",
    "hidden_persona_recommendation": "recommendation",
    "short_vs_long_term_lifecycle": "recommendation",
    "new_suggestions_chatbot": "recommendation",
    "over_personalization_chatbot_text": "over_personalization",
    "over_personalization_sensitive_event": "over_personalization",
    "over_personalization_repetition_recsys": "over_personalization",
    "over_personalization_repetition_chatbot": "over_personalization",
    "over_personalization_context_shift": "over_personalization",
    "over_personalization_sycophancy": "over_personalization",
    "agentic_community_post": "agentic_tasks",
    "agentic_send_post": "agentic_tasks",
    "agentic_dm_digest": "agentic_tasks",
    "agentic_group_dm_summary": "agentic_tasks",
    "agentic_cross_app_repost": "agentic_tasks",
    "agentic_auto_reply": "agentic_tasks",
    "agentic_vague_refind": "agentic_tasks",
    "agentic_proactive_daily_catchup": "agentic_tasks",
    "agentic_trending_alert": "agentic_tasks",
    "proactive_close_friend_update": "agentic_proactiveness",
    "restraint_sensitive_event_silence": "agentic_proactiveness",
    "proactive_friend_feed_react": "agentic_proactiveness",
    "proactive_trending_feed_react": "agentic_proactiveness",
    "active_mistake_prevention": "agentic_proactiveness",
    "proactive_overactive_check": "agentic_proactiveness",
}
"""Every task type, in Figure 4's order, with its family."""

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
    return tuple(task for task, of in TASK_TYPES.items() if of == family)
