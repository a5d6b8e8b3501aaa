"""The rubric's polarity-aware combiner (`combine_dim_scores_with_polarity`,
evaluation/personalization_rubric.py@8fd0dd9b): the per-dimension scores and the
hard-rule flags of a row made one combined score, 0 to 3 per positive dimension.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

DIM_POLARITY: Final[Mapping[str, str]] = {
    "preference_alignment": "+",
    "avoid_leak": "-",
    "privacy_leak": "-",
    "over_personalization": "-",
    "subtle_personalization": "+",
    "stale_preference_use": "-",
    "relationship_awareness": "+",
    "voice_match": "+",
    "voice_self_consistency": "+",
}
"""Polarity of each defined dimension (`_PERSONALIZATION_DIM_DEFS`,
evaluation/prompts.py@dc56d425). A dimension not listed (`telegraph_avoidance`) is `+`."""
DIM_ALIAS: Final[Mapping[str, str]] = {"relationship_aware": "relationship_awareness"}
HARD_RULE_DIMS: Final = frozenset(
    {"avoid_leak", "privacy_leak", "stale_preference_use", "telegraph_avoidance"}
)
PENALTY_PER_HARD_FAIL: Final = 1.5
PENALTY_PER_SOFT_NEG: Final = 1.5
DIM_MAX: Final = 3.0


@dataclass(frozen=True)
class Combined:
    """`combine_dim_scores_with_polarity`'s four outputs."""

    positive_score: float
    negative_penalty: float
    combined: float
    max_possible: float


def polarity(dim: str, polarities: Mapping[str, str] = DIM_POLARITY) -> str:
    """A dimension's polarity, `+` when unknown, looked up again under its alias."""
    found = polarities.get(dim, "+")
    if found == "+" and dim in DIM_ALIAS:
        found = polarities.get(DIM_ALIAS[dim], "+")
    return found


def combine_dim_scores_with_polarity(
    scores: Mapping[str, object],
    applicable: Mapping[str, bool],
    polarities: Mapping[str, str] = DIM_POLARITY,
) -> Combined:
    """The rubric's combined score (personalization_rubric.py@8fd0dd9b).

    Over the applicable dimensions: each `+` one adds its numeric `<dim>_score` (0-3;
    none, nothing); each `-` hard-rule one costs 1.5 when `<dim>_hard_fail` is truthy;
    each other `-` one costs 1.5 x max(0, 3 - `<dim>_score`) / 3 when scored. Combined =
    clamp(positive - penalty, 0, 3 x the number of applicable `+` dimensions); that
    maximum is `max_possible` (the `pr_combined_max_possible` of `accuracy_value`).
    """
    on = [dim for dim, is_on in applicable.items() if is_on]
    positive = [dim for dim in on if polarity(dim, polarities) == "+"]
    negative = [dim for dim in on if polarity(dim, polarities) != "+"]
    gained = sum(
        value for dim in positive if (value := _score(scores.get(f"{dim}_score"))) is not None
    )
    penalty = 0.0
    for dim in negative:
        if dim in HARD_RULE_DIMS:
            if _score(scores.get(f"{dim}_hard_fail")):
                penalty += PENALTY_PER_HARD_FAIL
        elif (value := _score(scores.get(f"{dim}_score"))) is not None:
            penalty += max(0.0, DIM_MAX - value) / DIM_MAX * PENALTY_PER_SOFT_NEG
    most = DIM_MAX * len(positive)
    return Combined(gained, penalty, max(0.0, min(most, gained - penalty)), most)


def _score(value: object) -> float | None:
    """A number the authors' `isinstance(v, (int, float))` accepts (bools are ints)."""
    return float(value) if isinstance(value, (bool, int, float)) else None
