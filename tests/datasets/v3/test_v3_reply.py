"""How an agentic reply's judged text is read (`reading.reply.first_text`), as the
authors' text-only dispatch reads it (tasks/agentic_tasks.py@8e2a111f
`_dispatch_and_score`): the first truthy of `final_answer`, `response`, `summary`,
`reply_to_user`, else the raw reply; a dict or list JSON-dumped; an empty reply judged
as the empty text. And the agentic rubric judging that text."""

from __future__ import annotations

import json

import pytest

from inspect_personamem.datasets.v3.reading.reply import AGENTIC_TEXT_KEYS, first_text
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        # final_answer first, whatever else is there
        ('{"summary": "s", "final_answer": "the post"}', "the post"),
        # an empty final_answer is not truthy: response next
        ('{"final_answer": "", "response": "r", "summary": "s"}', "r"),
        ('{"summary": "s", "reply_to_user": "u"}', "s"),
        ('{"reply_to_user": "u"}', "u"),
        # a fenced object
        ('```json\n{"response": "fenced"}\n```', "fenced"),
        # no key the dispatch reads: the raw reply
        ('{"hashtags": ["#a"]}', '{"hashtags": ["#a"]}'),
        # not an object: the raw reply
        ("[1, 2]", "[1, 2]"),
        ("plain prose", "plain prose"),
        # empty: the empty text (no gate in that branch)
        ("", ""),
    ],
)
def test_the_first_truthy_field_or_the_raw_reply(reply: str, text: str) -> None:
    assert first_text(reply) == text


def test_a_dict_or_list_picked_is_json_dumped() -> None:
    per_person = {"summary": {"alice": "wants Friday", "bob": "café ok"}}
    assert first_text(json.dumps(per_person)) == json.dumps(
        per_person["summary"], ensure_ascii=False
    )
    assert "café" in first_text(json.dumps(per_person))  # not \\u-escaped
    assert first_text('{"final_answer": ["a", "b"]}') == '["a", "b"]'
    assert first_text('{"response": 0, "summary": 7}') == "7"  # 0 is not truthy


def test_the_order_is_the_dispatch_s() -> None:
    assert AGENTIC_TEXT_KEYS == ("final_answer", "response", "summary", "reply_to_user")


@pytest.mark.parametrize("task_type", [name for name in TASK_TYPES if name.startswith("agentic_")])
def test_each_agentic_type_judges_that_text(task_type: str) -> None:
    scorer = TASK_TYPES[task_type].scorer
    reply = json.dumps({"summary": {"ana": "in"}, "reply_to_user": "done"})
    assert scorer.text(reply) == '{"ana": "in"}'  # type: ignore[union-attr]
