"""The rubric judges' evidence for an agentic row (`judges.source_a`): Source A built from
the persona's backend at the row's time as the authors' runner builds it
(agentic_tasks.py@8e2a111f `_dispatch_and_score`: `pr.build_source_a(bq, user_id, t,
query_text=_query_text_for(task_id, inst))`), carried by the sample for the judge alone,
and rendered into the unified and the per-dimension judge's prompts of real rows
(persona 115's, `tests/fixtures/personamem_v3_real/`) read with a persona that has events
around the row's time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.datasets.v3.generator import write_persona
from inspect_personamem.datasets.v3.judges.preface import dumps
from inspect_personamem.datasets.v3.judges.source_a import SOURCE_A_KEY
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY, SHOWN_KEY
from inspect_personamem.datasets.v3.scoring.judged import judge_row
from inspect_personamem.datasets.v3.task_types.base import JudgeChoice
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample

from .test_v3_real_rows import ROWS, row_of

SEND_POST = "115:0019:t12_instagram_0"
DIGEST = "115:0015:t8_instagram_24h"
HOUR = 3600


def _event(oid: str, ts: int, kind: str, item: str, **extra: Any) -> dict[str, Any]:
    return {
        "source_object_id": oid,
        "source_timestamp": ts,
        "source_interaction_type": kind,
        "source_hashtags": [f"#{oid}"],
        "preferences": [{"persona_item": item, "category": "sports", **extra}],
    }


def _persona(root: Path, t: int) -> None:
    """Persona 115 with events around `t`: what each Source A key must and must not hold."""
    profile = {
        "user_id": "115",
        "friends": [{"friend_id": "friend_6", "display_name": "Rachel Moss"}],
        "hidden_personas": [
            {"type": "sensitive_life_event", "label": "grief", "evidence_hashtags": ["#loss"]},
            {"type": "covert_concern", "label": "debt", "evidence_hashtags": ["#debt"]},
        ],
    }
    faded = [{"update_type": "faded"}]
    instagram = [
        _event("liked_before", t - 3 * 24 * HOUR, "explicit_positive", "loves boxing nights"),
        _event("liked_after", t + HOUR, "explicit_positive", "loves opera premieres"),
        _event("disliked_after", t + 2 * HOUR, "explicit_negative", "hates pineapple pizza"),
        _event("disliked_far", t + 3 * 24 * HOUR, "explicit_negative", "hates cold brew"),
        _event(
            "faded_before",
            t - 2 * 24 * HOUR,
            "implicit_positive",
            "old karaoke habit",
            **{"update_history": faded},
        ),
        {
            **_event("debt_before", t - 24 * HOUR - 1, "implicit_positive", "budget spreadsheets"),
            "source_hashtags": ["#debt"],
        },
        {
            "source_object_id": "own_post",
            "source_timestamp": t - HOUR,
            "source_interaction_type": "explicit_positive",
            "is_self_authored": True,
            "content": {"caption": "no filler, just the work"},
            "source_hashtags": ["#grind"],
        },
        {
            "source_object_id": "own_post_late",
            "source_timestamp": t,
            "source_interaction_type": "explicit_positive",
            "is_self_authored": True,
            "content": {"caption": "posted at the very moment"},
        },
    ]
    write_persona(root / "backend" / "115", profile, {"instagram": instagram})


def _sample(tmp_path: Path, query_id: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    query, path, contexts = row_of(tmp_path, "115", query_id)
    _persona(tmp_path, query.ts)
    sample = query_to_sample(query, contexts, path)
    assert sample.metadata is not None
    return query, sample.metadata[SCORER_KEY], sample.metadata[SHOWN_KEY]


def _prompts(query: Any, fields: dict[str, Any], shown: dict[str, Any], choice: JudgeChoice) -> str:
    asked: list[str] = []

    async def ask(prompt: str) -> str:
        asked.append(prompt)
        return "{}"

    reply = str(query.instance["example_response"])
    asyncio.run(judge_row(query.task_type, reply, fields, shown, ask, choice=choice))
    return "\n".join(asked)


def _items(entries: list[dict[str, Any]]) -> list[str]:
    return [str(entry.get("persona_item") or entry.get("caption")) for entry in entries]


def test_source_a_is_the_persona_at_the_rows_time(tmp_path: Path) -> None:
    query, fields, shown = _sample(tmp_path, SEND_POST)
    truth = fields[SOURCE_A_KEY]["unified"]
    assert list(truth)[0] == "query_text"
    assert truth["query_text"] == query.instance["update"]  # `_query_text_for`: the update
    # preferences before T only (strict), the faded one among them
    assert set(_items(truth["user_top_preferences"])) == {
        "loves boxing nights",
        "old karaoke habit",
        "budget spreadsheets",
    }
    # the judge's +-24 h negatives reach past T; beyond a day they do not
    assert _items(truth["user_negatives_nearby"]) == ["hates pineapple pizza"]
    assert _items(truth["update_history_contradictions"]) == ["old karaoke habit"]
    assert _items(truth["user_style_refs"]) == ["no filler, just the work"]
    assert truth["user_friends"] == [{"friend_id": "friend_6", "display_name": "Rachel Moss"}]
    # rubric v3 flags the sensitive life event's evidence only; 8fd0dd9b also a covert concern
    assert truth["privacy_flagged_prefs"] == []
    older = fields[SOURCE_A_KEY]["per_dimension"]
    assert "query_text" not in older
    assert _items(older["privacy_flagged_prefs"]) == ["budget spreadsheets"]
    # none of it reaches the model
    assert "loves boxing nights" not in str(shown)


def test_the_query_line_ranks_the_preferences(tmp_path: Path) -> None:
    """`_rank_relevant`: the preference sharing the most tokens with the query line first."""
    query, path, contexts = row_of(tmp_path, "115", SEND_POST)
    _persona(tmp_path, query.ts)
    query.instance["update"] = "budget spreadsheets again"
    sample = query_to_sample(query, contexts, path)
    assert sample.metadata is not None
    top = sample.metadata[SCORER_KEY][SOURCE_A_KEY]["unified"]["user_top_preferences"]
    assert _items(top)[0] == "budget spreadsheets"


@pytest.mark.parametrize("query_id", [SEND_POST, DIGEST])
def test_the_unified_prompt_carries_the_authors_evidence(tmp_path: Path, query_id: str) -> None:
    query, fields, shown = _sample(tmp_path, query_id)
    text = _prompts(query, fields, shown, "unified")
    assert dumps(fields[SOURCE_A_KEY]["unified"]) in text
    assert "loves boxing nights" in text and "hates pineapple pizza" in text
    assert "loves opera premieres" not in text  # a positive after T is no preference yet
    # the row's rendered ground-truth block is the model's, not the judge's evidence
    assert str(query.instance["groundtruth_preference"]) not in text


@pytest.mark.parametrize("query_id", [SEND_POST, DIGEST])
def test_the_per_dimension_prompts_carry_it_too(tmp_path: Path, query_id: str) -> None:
    query, fields, shown = _sample(tmp_path, query_id)
    text = _prompts(query, fields, shown, "per_dimension")
    assert dumps(fields[SOURCE_A_KEY]["per_dimension"]) in text
    assert "budget spreadsheets" in text


def test_a_type_with_its_own_ground_truth_gets_none(tmp_path: Path) -> None:
    """A chatbot row carries its slices in the instance: no Source A is rebuilt for it."""
    query_id = next(
        r["query_id"] for u, r in ROWS if r["task_type"] == "chatbot_personalized_response"
    )
    query, path, contexts = row_of(tmp_path, query_id.split(":")[0], query_id)
    sample = query_to_sample(query, contexts, path)
    assert sample.metadata is not None
    assert SOURCE_A_KEY not in sample.metadata[SCORER_KEY]
