"""The paper's seven question categories and the raw labels each split uses for them.

The 32k file labels "acknowledge latest user preferences" questions
`recall_user_shared_facts`, the label that 128k and 1M use for "recall user-shared
facts"; the authors' per-category 32k numbers only come out with this per-split
mapping. An unknown label is an error, never a silent bucket.
"""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v1.splits import Split

RECALL_FACTS: Final = "recall_user_shared_facts"
ACKNOWLEDGE_PREFERENCES: Final = "acknowledge_latest_user_preferences"
TRACK_EVOLUTION: Final = "track_full_preference_evolution"
REVISIT_REASONS: Final = "revisit_reasons_behind_preference_updates"
RECOMMENDATIONS: Final = "provide_preference_aligned_recommendations"
GENERALIZE: Final = "generalize_to_new_scenarios"
NEW_IDEAS: Final = "suggest_new_ideas"

CATEGORY_TITLES: Final[dict[str, str]] = {
    RECALL_FACTS: "Recall user-shared facts",
    ACKNOWLEDGE_PREFERENCES: "Acknowledge latest user preferences",
    TRACK_EVOLUTION: "Track full preference evolution",
    REVISIT_REASONS: "Revisit reasons behind preference updates",
    RECOMMENDATIONS: "Provide preference-aligned recommendations",
    GENERALIZE: "Generalize to new scenarios",
    NEW_IDEAS: "Suggest new ideas",
}
"""Paper category (normalised key) -> the paper's title for it."""

CATEGORIES: Final[tuple[str, ...]] = tuple(CATEGORY_TITLES)

_LONG_SPLIT_LABELS: Final[dict[str, str]] = {
    "recall_user_shared_facts": RECALL_FACTS,
    "acknowledge_latest_user_preferences": ACKNOWLEDGE_PREFERENCES,
    "track_full_preference_evolution": TRACK_EVOLUTION,
    "revisit_reasons_behind_preference_updates": REVISIT_REASONS,
    "provide_preference_aligned_recommendations": RECOMMENDATIONS,
    "generalize_to_new_scenarios": GENERALIZE,
    "suggest_new_ideas": NEW_IDEAS,
}

RAW_LABELS: Final[dict[Split, dict[str, str]]] = {
    "32k": {
        "recalling_facts_mentioned_by_the_user": RECALL_FACTS,
        "recall_user_shared_facts": ACKNOWLEDGE_PREFERENCES,
        "track_full_preference_evolution": TRACK_EVOLUTION,
        "recalling_the_reasons_behind_previous_updates": REVISIT_REASONS,
        "provide_preference_aligned_recommendations": RECOMMENDATIONS,
        "generalizing_to_new_scenarios": GENERALIZE,
        "suggest_new_ideas": NEW_IDEAS,
    },
    "128k": dict(_LONG_SPLIT_LABELS),
    "1M": {
        **_LONG_SPLIT_LABELS,
        "track_full_preference_updates": TRACK_EVOLUTION,
        "generalizing_to_new_scenarios": GENERALIZE,
    },
}
"""Split -> raw `question_type` label -> paper category."""


def normalise_question_type(split: Split, raw_label: str) -> str:
    """Map a raw label of `split` to its paper category; KeyError if unknown."""
    return RAW_LABELS[split][raw_label]
