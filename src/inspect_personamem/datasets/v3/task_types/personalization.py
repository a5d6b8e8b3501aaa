"""The personalization family (Figure 4): a chatbot reply personalized to the user, a
local recommendation after a move, an honest abstention, a hidden motivation served, a
preference shift followed through."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.judges.abstention import ABSTENTION
from inspect_personamem.datasets.v3.judges.base import NotBuilt
from inspect_personamem.datasets.v3.judges.deep_motivation import DEEP_MOTIVATION
from inspect_personamem.datasets.v3.judges.preference_shift import PREFERENCE_SHIFT
from inspect_personamem.datasets.v3.judges.unified import Unified
from inspect_personamem.datasets.v3.prompts.chatbot import CHAT, chatbot, chatbot_no_prior
from inspect_personamem.datasets.v3.prompts.shown import TaskPrompt
from inspect_personamem.datasets.v3.rules.geo import GeoShift
from inspect_personamem.datasets.v3.synthetic import personalization as instances
from inspect_personamem.datasets.v3.task_types.base import TaskType

TYPES: Final = (
    TaskType(
        "chatbot_personalized_response",
        "personalization",
        "pr_preference_alignment_score",
        "pref_align_gated",
        "0-10, 0 on a hard rule",
        TaskPrompt(chatbot, f"{CHAT} (chatbot_response.py@b8066320 run_task_b)", "READ"),
        Unified("chatbot_personalized_response"),
        instance=instances.chatbot_personalized_response,
        gated=True,
        per_dimension=NotBuilt(
            "the newest registry's headline `pr_preference_alignment_score` is 0-10, which "
            "only the unified rubric gives (-T judge=unified)"
        ),
    ),
    TaskType(
        "local_recommendation_geo_shift",
        "personalization",
        "geo_shift_correctness",
        "fraction",
        "0 / 0.5 / 1",
        TaskPrompt(
            chatbot_no_prior, f"{CHAT} (local_recommendation_geo_shift.py@03f5e860)", "READ"
        ),
        GeoShift(),
        instance=instances.local_recommendation_geo_shift,
    ),
    TaskType(
        "personal_qa_hallucination",
        "personalization",
        "abstention_quality_0_10",
        "0to10",
        "0-10",
        TaskPrompt(chatbot_no_prior, f"{CHAT} (personal_qa_hallucination.py@a4c2742a)", "READ"),
        ABSTENTION,
        instance=instances.personal_qa_hallucination,
        gated=True,
    ),
    TaskType(
        "hidden_persona_implicit_qa",
        "personalization",
        "deep_motivation_alignment",
        "0to3",
        "0-3",
        TaskPrompt(chatbot_no_prior, f"{CHAT} (hidden_persona_implicit_qa.py@fafd9bac)", "READ"),
        DEEP_MOTIVATION,
        instance=instances.hidden_persona_implicit_qa,
    ),
    TaskType(
        "preference_shift_followthrough",
        "personalization",
        "preference_shift_consistency",
        "0to10",
        "0-10",
        TaskPrompt(
            chatbot_no_prior, f"{CHAT} (preference_shift_followthrough.py@8e2a111f)", "READ"
        ),
        PREFERENCE_SHIFT,
        instance=instances.preference_shift_followthrough,
    ),
)
"""The personalization types, in Figure 4's order."""
