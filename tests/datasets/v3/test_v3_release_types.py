"""Which task types the 100-persona release holds (`release.families`): the 31 of the
authors' release script, each one object in the registry, and none of the names their
pipeline retired or merged; a row of such a name is refused in one line saying why, in
either layout, never served as another type. The merged distractor_reject arm is
generated, asked and scored as the over_personalization_chatbot_text row it ships as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.v3_backend import query_row, write_queries

from inspect_personamem.datasets.v3.generator import generate, hub_item
from inspect_personamem.datasets.v3.offline.answers import known_replies
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.chatbot import chatbot_response_prompt
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.reading.reply import is_substantive
from inspect_personamem.datasets.v3.release.families import FAMILY_OF, FIG4, NOT_RELEASED
from inspect_personamem.datasets.v3.release.records import read_queries, task_type_problem
from inspect_personamem.datasets.v3.release.testjson import read_test_json
from inspect_personamem.datasets.v3.synthetic.over_personalization import DISTRACTOR_QUERIES
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample
from inspect_personamem.errors import PersonaMemDataError

THIRD_PARTY_EXTRAS = (
    "over_personalization_distractor_reject",
    "new_suggestions_recsys",
    "agentic_draft_audit",
    "agentic_wrong_recipient_check",
)
"""The names EventHorizon-Lab/MindBridge's `personamem_v3_scoring.py`@1255698b lists
beside the 31 (its rubric tables, transcribed from the authors')."""


def test_the_release_holds_31_types_each_one_object_and_none_retired() -> None:
    assert sum(len(names) for names in FIG4.values()) == len(FAMILY_OF) == 31
    assert set(TASK_TYPES) == set(FAMILY_OF)
    assert set(THIRD_PARTY_EXTRAS) <= set(NOT_RELEASED)
    assert not set(NOT_RELEASED) & set(FAMILY_OF)
    assert all("@" in why for why in NOT_RELEASED.values())  # each says its source


@pytest.mark.parametrize("task_type", sorted(NOT_RELEASED))
def test_a_queries_csv_row_of_a_retired_type_is_refused_saying_why(
    tmp_path: Path, task_type: str
) -> None:
    path = write_queries(tmp_path, [query_row(task_type=task_type)])
    with pytest.raises(PersonaMemDataError) as raised:
        read_queries(path)
    message = str(raised.value)
    assert message.startswith(
        f"{path}, line 3, query_id '105:0003:recsys_2026-04-04_a5', field 'task_type': "
    )
    assert f"{task_type!r} is not one of the 31 task types: the release holds none (" in message
    assert NOT_RELEASED[task_type] in message and "\n" not in message


@pytest.mark.parametrize("task_type", THIRD_PARTY_EXTRAS)
def test_a_test_json_item_of_a_retired_type_is_refused_saying_why(
    tmp_path: Path, task_type: str
) -> None:
    path = tmp_path / "backend" / "105" / "test.json"
    path.parent.mkdir(parents=True)
    row = query_row(task_type=task_type, query_id="105:0000:recsys_2026-04-04_a5", seq="0")
    path.write_text(json.dumps([hub_item(row)]), encoding="utf-8")
    with pytest.raises(PersonaMemDataError) as raised:
        read_test_json(path, "105")
    message = str(raised.value)
    assert message.startswith(f"{path}, persona 105, item 0, ")
    assert "query_id '105:0000:recsys_2026-04-04_a5', field 'task_type': " in message
    assert NOT_RELEASED[task_type] in message and "\n" not in message


def test_a_name_the_pipeline_never_had_says_only_that_it_is_not_one() -> None:
    assert task_type_problem("slate_rank") == "'slate_rank' is not one of the 31 task types"
    assert all(task_type_problem(name) is None for name in FAMILY_OF)


DISTRACTOR_KEYS = {
    "test_id",
    "arm",
    "source_timestamp",
    "formatted_timestamp",
    "user_query",
    "prior_conversation",
    "action",
    "source_hashtags",
    "held_out_preference",
    "blind_check_score",
    "blind_check_generic_answer",
    "privacy_flagged_prefs",
    "top_k_relevant_prefs",
    "gt_slice",
    "post_test_window",
    "irrelevant_persona_items",
    "_distractor_reject",
}
"""The keys `build_c3_instance` (evaluation/build_benchmark.py@8e2a111f) writes for the
distractor arm the release's over_personalization_chatbot_text rows hold."""


def test_the_distractor_arm_is_generated_asked_and_scored_as_chatbot_text(
    tmp_path: Path,
) -> None:
    name = "over_personalization_chatbot_text"
    folder = generate(tmp_path, personas=1, queries_per_type=2, task_types={name: TASK_TYPES[name]})
    (uid,) = folder.personas
    queries = read_queries(folder.queries_file(uid))
    arms = {query.instance["arm"]: query for query in queries}
    assert set(arms) == {"control", "distractor_reject"}
    query = arms["distractor_reject"]
    assert set(query.instance) >= DISTRACTOR_KEYS
    assert query.instance["user_query"] in DISTRACTOR_QUERIES
    (item,) = query.instance["irrelevant_persona_items"]
    assert query.instance["privacy_flagged_prefs"][0]["persona_item"] == item
    sample = query_to_sample(query, PersonaContexts(PersonaStreams(tmp_path / "backend")), "q")
    meta = sample.metadata or {}
    # the authors' run_task_b gives every arm but `control` the personalized template
    assert str(sample.input) == chatbot_response_prompt(query.instance["user_query"], [])
    assert item not in str(sample.input)
    assert meta[SCORER_KEY]["privacy_flagged_prefs"] == query.instance["privacy_flagged_prefs"]
    top, low = known_replies(query)
    assert item not in top and item in low
    assert is_substantive(top)
