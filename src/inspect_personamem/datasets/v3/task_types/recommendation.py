"""The recommendation family (Figure 4): three slates ranked (graded NDCG@5, as the
authors' recompute_ndcg.py@8e2a111f `THREE`), a lifecycle probe, a new suggestion."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.judges.new_suggestions import NewSuggestions
from inspect_personamem.datasets.v3.prompts.chatbot import new_suggestions
from inspect_personamem.datasets.v3.prompts.shown import TaskPrompt
from inspect_personamem.datasets.v3.prompts.slate import (
    E2,
    LIFECYCLE,
    at_ai_directive,
    lifecycle,
    slate,
)
from inspect_personamem.datasets.v3.rules.lifecycle import Lifecycle
from inspect_personamem.datasets.v3.rules.ranking import Slate
from inspect_personamem.datasets.v3.synthetic import recommendation as instances
from inspect_personamem.datasets.v3.task_types.base import NDCG, TaskType

_SLATE: Final = "personalized_recommendation.py@c0b43289"

TYPES: Final = (
    TaskType(
        "personalized_recommendation",
        "recommendation",
        *NDCG,
        TaskPrompt(slate, _SLATE, "READ", "slate"),
        Slate("ranked_indexes"),
        instance=instances.personalized_recommendation,
        heavy=True,
    ),
    TaskType(
        "at_ai_directive_followup",
        "recommendation",
        *NDCG,
        TaskPrompt(at_ai_directive, E2, "READ", "slate"),
        Slate("ranked_indices", directive=True),
        instance=instances.at_ai_directive_followup,
    ),
    TaskType(
        "hidden_persona_recommendation",
        "recommendation",
        *NDCG,
        TaskPrompt(slate, f"{_SLATE} (hidden_persona_recommendation.py@4a2f1706)", "READ", "slate"),
        Slate("ranked_indexes", binary_without_negatives=True),
        instance=instances.hidden_persona_recommendation,
    ),
    TaskType(
        "short_vs_long_term_lifecycle",
        "recommendation",
        "lifecycle_score",
        "signed_unit",
        "-1..1",
        TaskPrompt(lifecycle, LIFECYCLE, "READ"),
        Lifecycle(),
        instance=instances.short_vs_long_term_lifecycle,
    ),
    TaskType(
        "new_suggestions_chatbot",
        "recommendation",
        "passed",
        "fraction",
        "0/1",
        TaskPrompt(new_suggestions, "prompts.py@b8d90778 new_suggestions_chatbot_prompt", "READ"),
        NewSuggestions(),
        instance=instances.new_suggestions_chatbot,
    ),
)
"""The recommendation types, in Figure 4's order."""
