"""The one place the generator's driver (`datasets/v3/generator.py`) looks a task type's
instance builder up. It does not import `tasks`, which sits above the builders (a task
type will hold its builder), so a test checks that it names the 31 of `tasks.TASK_TYPES`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from inspect_personamem.datasets.v3.synthetic.agentic_proactiveness import (
    active_mistake_prevention,
    proactive_close_friend_update,
    proactive_friend_feed_react,
    proactive_overactive_check,
    proactive_trending_feed_react,
    restraint_sensitive_event_silence,
)
from inspect_personamem.datasets.v3.synthetic.agentic_tasks import (
    agentic_auto_reply,
    agentic_community_post,
    agentic_cross_app_repost,
    agentic_dm_digest,
    agentic_group_dm_summary,
    agentic_proactive_daily_catchup,
    agentic_send_post,
    agentic_trending_alert,
    agentic_vague_refind,
)
from inspect_personamem.datasets.v3.synthetic.instance import InstanceBuilder
from inspect_personamem.datasets.v3.synthetic.over_personalization import (
    over_personalization_chatbot_text,
    over_personalization_context_shift,
    over_personalization_repetition_chatbot,
    over_personalization_repetition_recsys,
    over_personalization_sensitive_event,
    over_personalization_sycophancy,
)
from inspect_personamem.datasets.v3.synthetic.personalization import (
    chatbot_personalized_response,
    hidden_persona_implicit_qa,
    local_recommendation_geo_shift,
    personal_qa_hallucination,
    preference_shift_followthrough,
)
from inspect_personamem.datasets.v3.synthetic.recommendation import (
    at_ai_directive_followup,
    hidden_persona_recommendation,
    new_suggestions_chatbot,
    personalized_recommendation,
    short_vs_long_term_lifecycle,
)

BUILDERS: Final[Mapping[str, InstanceBuilder]] = {
    "chatbot_personalized_response": chatbot_personalized_response,
    "local_recommendation_geo_shift": local_recommendation_geo_shift,
    "personal_qa_hallucination": personal_qa_hallucination,
    "hidden_persona_implicit_qa": hidden_persona_implicit_qa,
    "preference_shift_followthrough": preference_shift_followthrough,
    "personalized_recommendation": personalized_recommendation,
    "at_ai_directive_followup": at_ai_directive_followup,
    "hidden_persona_recommendation": hidden_persona_recommendation,
    "short_vs_long_term_lifecycle": short_vs_long_term_lifecycle,
    "new_suggestions_chatbot": new_suggestions_chatbot,
    "over_personalization_chatbot_text": over_personalization_chatbot_text,
    "over_personalization_sensitive_event": over_personalization_sensitive_event,
    "over_personalization_repetition_recsys": over_personalization_repetition_recsys,
    "over_personalization_repetition_chatbot": over_personalization_repetition_chatbot,
    "over_personalization_context_shift": over_personalization_context_shift,
    "over_personalization_sycophancy": over_personalization_sycophancy,
    "agentic_community_post": agentic_community_post,
    "agentic_send_post": agentic_send_post,
    "agentic_dm_digest": agentic_dm_digest,
    "agentic_group_dm_summary": agentic_group_dm_summary,
    "agentic_cross_app_repost": agentic_cross_app_repost,
    "agentic_auto_reply": agentic_auto_reply,
    "agentic_vague_refind": agentic_vague_refind,
    "agentic_proactive_daily_catchup": agentic_proactive_daily_catchup,
    "agentic_trending_alert": agentic_trending_alert,
    "proactive_close_friend_update": proactive_close_friend_update,
    "restraint_sensitive_event_silence": restraint_sensitive_event_silence,
    "proactive_friend_feed_react": proactive_friend_feed_react,
    "proactive_trending_feed_react": proactive_trending_feed_react,
    "active_mistake_prevention": active_mistake_prevention,
    "proactive_overactive_check": proactive_overactive_check,
}
"""Each task type's instance builder, by the type's name, in Figure 4's order. To be
replaced by `TASK_TYPES[name].instance` once `TaskType` holds its builder."""
