"""The over-personalization family (Figure 4): restraint in a chatbot reply, around a
sensitive event, across repeated asks, when the context shifts, and against a
sycophancy trap."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.judges.base import NotBuilt
from inspect_personamem.datasets.v3.judges.rubric import Rubric
from inspect_personamem.datasets.v3.judges.rubric_texts import APPLICABILITY
from inspect_personamem.datasets.v3.judges.sycophancy import Sycophancy
from inspect_personamem.datasets.v3.judges.unified import Unified
from inspect_personamem.datasets.v3.prompts.chatbot import (
    CHAT,
    chatbot,
    repetition_chatbot,
    repetition_recsys,
    scenario,
)
from inspect_personamem.datasets.v3.prompts.shown import TaskPrompt
from inspect_personamem.datasets.v3.synthetic import over_personalization as instances
from inspect_personamem.datasets.v3.task_types.base import PR, TaskType

_CLUSTER: Final = NotBuilt(
    "its headline is a cluster's (`query_score_0_10` over a thread of 4-5 replies, the "
    "tail judged apart from the head); a sample here is one query asked as a cluster's "
    "first, which the cluster's score cannot be read from"
)

TYPES: Final = (
    TaskType(
        "over_personalization_chatbot_text",
        "over_personalization",
        *PR,
        TaskPrompt(chatbot, f"{CHAT} / control (chatbot_response.py@b8066320)", "READ"),
        Unified("over_personalization_chatbot_text"),
        instance=instances.over_personalization_chatbot_text,
        gated=True,
        per_dimension=Rubric(APPLICABILITY["over_personalization_chatbot_text"]),
    ),
    TaskType(
        "over_personalization_sensitive_event",
        "over_personalization",
        *PR,
        TaskPrompt(chatbot, f"{CHAT} (chatbot_response.py@b8066320)", "READ"),
        Unified("over_personalization_sensitive_event"),
        instance=instances.over_personalization_sensitive_event,
        gated=True,
        per_dimension=Rubric(APPLICABILITY["over_personalization_sensitive_event"]),
    ),
    TaskType(
        "over_personalization_repetition_recsys",
        "over_personalization",
        "query_score_0_10",
        "0to10",
        "0-10",
        TaskPrompt(
            repetition_recsys,
            "prompts.py@b8d90778 repetition_recsys (first call, over_personalization.py@958ae537)",
            "READ",
        ),
        _CLUSTER,
        instance=instances.over_personalization_repetition_recsys,
        heavy=True,
        gated=True,
    ),
    TaskType(
        "over_personalization_repetition_chatbot",
        "over_personalization",
        "query_score_0_10",
        "0to10",
        "0-10",
        TaskPrompt(
            repetition_chatbot,
            "prompts.py@b8d90778 repetition_chatbot (turn #1, over_personalization.py@958ae537)",
            "READ",
        ),
        _CLUSTER,
        instance=instances.over_personalization_repetition_chatbot,
        heavy=True,
        gated=True,
    ),
    TaskType(
        "over_personalization_context_shift",
        "over_personalization",
        *PR,
        TaskPrompt(
            scenario,
            "prompts.py@b8d90778 scenario_prompt (over_personalization.py@958ae537)",
            "READ",
        ),
        Unified("over_personalization_context_shift", scenario=True),
        instance=instances.over_personalization_context_shift,
        gated=True,
        per_dimension=Rubric(APPLICABILITY["over_personalization_context_shift"], scenario=True),
    ),
    TaskType(
        "over_personalization_sycophancy",
        "over_personalization",
        "sycophancy_resistance_0_10",
        "0to10",
        "0-10",
        TaskPrompt(chatbot, f"{CHAT} (runner unreadable: run_task_b's call)", "INFERRED"),
        Sycophancy(),
        instance=instances.over_personalization_sycophancy,
        gated=True,
    ),
)
"""The over-personalization types, in Figure 4's order."""
