"""PersonaMem's question categories (`datasets/v1/question_types.py`): each split's raw
labels mapped to the paper's seven categories (32k's own labels, its
`recall_user_shared_facts` meaning another category than in 128k and 1M), and an
unknown label an error, never a silent bucket."""

from __future__ import annotations

import pytest

from inspect_personamem.datasets.v1.question_types import (
    ACKNOWLEDGE_PREFERENCES,
    CATEGORIES,
    CATEGORY_TITLES,
    GENERALIZE,
    RAW_LABELS,
    RECALL_FACTS,
    REVISIT_REASONS,
    TRACK_EVOLUTION,
    normalise_question_type,
)
from inspect_personamem.datasets.v1.splits import Split


def test_the_same_raw_label_is_another_category_in_32k() -> None:
    assert normalise_question_type("32k", "recall_user_shared_facts") == ACKNOWLEDGE_PREFERENCES
    assert normalise_question_type("128k", "recall_user_shared_facts") == RECALL_FACTS
    assert normalise_question_type("1M", "recall_user_shared_facts") == RECALL_FACTS
    assert normalise_question_type("32k", "recalling_facts_mentioned_by_the_user") == RECALL_FACTS
    assert normalise_question_type("32k", "recalling_the_reasons_behind_previous_updates") == (
        REVISIT_REASONS
    )


def test_1m_takes_its_own_spellings_beside_the_long_splits_labels() -> None:
    assert normalise_question_type("1M", "track_full_preference_updates") == TRACK_EVOLUTION
    assert normalise_question_type("1M", "track_full_preference_evolution") == TRACK_EVOLUTION
    assert normalise_question_type("1M", "generalizing_to_new_scenarios") == GENERALIZE
    assert normalise_question_type("1M", "generalize_to_new_scenarios") == GENERALIZE
    with pytest.raises(KeyError):
        normalise_question_type("128k", "track_full_preference_updates")


@pytest.mark.parametrize("split", ["32k", "128k", "1M"])
def test_every_split_reaches_all_seven_categories(split: Split) -> None:
    assert set(RAW_LABELS[split].values()) == set(CATEGORIES)


def test_an_unknown_label_is_an_error() -> None:
    with pytest.raises(KeyError, match="suggest_old_ideas"):
        normalise_question_type("32k", "suggest_old_ideas")


def test_the_categories_are_the_papers_seven_in_its_order() -> None:
    assert len(CATEGORIES) == 7
    assert CATEGORIES[0] == RECALL_FACTS and CATEGORY_TITLES[RECALL_FACTS] == (
        "Recall user-shared facts"
    )
    assert CATEGORY_TITLES[CATEGORIES[-1]] == "Suggest new ideas"
