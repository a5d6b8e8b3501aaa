"""`history/seen.py`: what a history source is built from (`Past`), which locates a
question's evidence by its version's rule and records it in the sample's metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ChatMessageUser, ModelName
from inspect_ai.solver import TaskState

from inspect_personamem.data.contexts import NO_CONTEXTS
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.history.seen import Past


def state(metadata: dict[str, Any]) -> TaskState:
    return TaskState(ModelName("m/m"), "q1", 1, "?", [], metadata=metadata)


def test_a_question_s_evidence_is_located_by_the_rule_and_recorded_for_the_log() -> None:
    asked: list[Mapping[str, Any]] = []
    shown = (ChatMessageUser(content="I like tea"),)

    def locate(metadata: Mapping[str, Any]) -> Evidence:
        asked.append(dict(metadata))
        end = int(metadata["end_index_in_shared_context"])
        return Evidence(((end - 4, end - 2), (end - 1, end)), shown, "session 2 of 3", "tokens")

    sample = state({"end_index_in_shared_context": 10})
    found = Past(NO_CONTEXTS, locate).evidence(sample)
    assert found.spans == ((6, 8), (9, 10)) and found.shown == shown
    assert asked == [{"end_index_in_shared_context": 10}]
    assert sample.metadata["evidence"] == {
        "located": True, "spans": [[6, 8], [9, 10]], "messages": 3,
        "where": "session 2 of 3", "rule": "tokens",
    }  # fmt: skip


def test_evidence_not_located_is_recorded_as_such() -> None:
    def locate(metadata: Mapping[str, Any]) -> Evidence:
        return Evidence((), (), "not in the history")

    sample = state({})
    assert not Past(NO_CONTEXTS, locate).evidence(sample).located
    assert sample.metadata["evidence"] == {
        "located": False, "spans": [], "messages": 0, "where": "not in the history",
    }  # fmt: skip


def test_each_past_has_its_own_mapping_of_prompts_empty_unless_given() -> None:
    def locate(metadata: Mapping[str, Any]) -> Evidence:
        raise AssertionError("not asked")

    first, second = Past(NO_CONTEXTS, locate), Past(NO_CONTEXTS, locate)
    assert first.prompts == {} and first.prompts is not second.prompts
