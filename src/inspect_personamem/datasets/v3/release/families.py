"""The words of the release for PersonaMem-v3's task types: the paper's five families
(Figure 4) with the task types each holds, as the authors' release script lists them
(`FIG4` in `scripts/export_hf_release.py`, the newest stored copy;
`../shared/docs/PERSONAMEM_V3.md` section 3), and the pipeline's own `task_family`
codes a query row carries (`FAMILY_CODES`), which do not map one to one onto the paper's
families (`e_followup` holds recommendation and personalization tasks alike). A query
row's `task_type` must be one of `FIG4`'s; what each type is and does is its object
(`task_types`), whose family a test holds to this list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

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
"""The 5 families in Figure 4's order, by identifier (`personamem_v3_<family>`), with
the paper's name."""
FAMILIES: Final[tuple[Family, ...]] = tuple(FAMILY_NAMES)
"""The 5 family identifiers in Figure 4's order."""

FIG4: Final[Mapping[Family, tuple[str, ...]]] = {
    "personalization": (
        "chatbot_personalized_response",
        "local_recommendation_geo_shift",
        "personal_qa_hallucination",
        "hidden_persona_implicit_qa",
        "preference_shift_followthrough",
    ),
    "recommendation": (
        "personalized_recommendation",
        "at_ai_directive_followup",
        "hidden_persona_recommendation",
        "short_vs_long_term_lifecycle",
        "new_suggestions_chatbot",
    ),
    "over_personalization": (
        "over_personalization_chatbot_text",
        "over_personalization_sensitive_event",
        "over_personalization_repetition_recsys",
        "over_personalization_repetition_chatbot",
        "over_personalization_context_shift",
        "over_personalization_sycophancy",
    ),
    "agentic_tasks": (
        "agentic_community_post",
        "agentic_send_post",
        "agentic_dm_digest",
        "agentic_group_dm_summary",
        "agentic_cross_app_repost",
        "agentic_auto_reply",
        "agentic_vague_refind",
        "agentic_proactive_daily_catchup",
        "agentic_trending_alert",
    ),
    "agentic_proactiveness": (
        "proactive_close_friend_update",
        "restraint_sensitive_event_silence",
        "proactive_friend_feed_react",
        "proactive_trending_feed_react",
        "active_mistake_prevention",
        "proactive_overactive_check",
    ),
}
"""The 31 task types of the release, by family, in Figure 4's order."""
FAMILY_OF: Final[Mapping[str, Family]] = {
    name: family for family, names in FIG4.items() for name in names
}
"""The release's task types, each with its family."""

NOT_RELEASED: Final[Mapping[str, str]] = {
    "over_personalization_distractor_reject": (
        "merged into over_personalization_chatbot_text, whose rows carry its instances "
        "(task_registry.py@8e2a111f OLD_TO_NEW, build_benchmark.py@8e2a111f)"
    ),
    "new_suggestions_recsys": (
        "retired, new suggestions is chatbot-only (task_registry.py@8e2a111f "
        "DROPPED_TASK_TYPES; scripts/add_chatbot_suggestions.py drops its rows)"
    ),
    "agentic_draft_audit": (
        "dropped (task_registry.py@8e2a111f DROPPED_TASK_TYPES; not in "
        "agentic_tasks.py@8e2a111f ALL_BUILDERS)"
    ),
    "agentic_wrong_recipient_check": (
        "retired, kept out of the builders so no row reaches test.json "
        "(agentic_tasks.py@8e2a111f ALL_BUILDERS, task_distribution.py@8e2a111f)"
    ),
    "preference_removal_regen": (
        "dropped for preference_shift_followthrough (task_registry.py@8e2a111f DROPPED_TASK_TYPES)"
    ),
    "daily_personalized_briefing": (
        "dropped for agentic_proactive_daily_catchup (task_registry.py@8e2a111f DROPPED_TASK_TYPES)"
    ),
    "agentic_composed_post": (
        "merged into agentic_send_post (task_registry.py@8e2a111f OLD_TO_NEW)"
    ),
    "agentic_user_tone_post": (
        "renamed agentic_community_post (task_registry.py@8e2a111f OLD_TO_NEW)"
    ),
    "proactive_unfulfilled_stated_need": (
        "not in task_registry.py@8e2a111f TASK_TYPE_META nor a bucket of "
        "build_benchmark.py@8e2a111f"
    ),
}
"""Task types of the authors' pipeline that the 100-persona release holds none of, each
with why: the four a third party's scorer lists beside the 31 (EventHorizon-Lab/MindBridge
`personamem_v3_scoring.py`@1255698b, from the authors' rubric table, which keeps old
rows) and the others older checkouts' `queries.csv` carry (the authors'
`benchmark/benchmark_analysis/report.html`@da803dcc, 945 rows of an older build). The
release's `test.json` is what `scripts/prepare_eval_data.py` writes from
`build_benchmark`'s buckets (the newest copies, with the registry and builders of
8e2a111f); `scripts/export_hf_release.py` (its newest, 100-persona copy) copies it and
describes the 31 of `FIG4`. A row of one of these is refused in one line saying why
(`records.task_type_problem`), never served as another type."""

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
