"""A real PersonaMem-v2 row (the shipped excerpt, `tests/fixtures/`) as the sample a
task sends: its question, its options in the shown order with the target naming the
correct one, and the labels its metrics group by, each checked against the row's
released cells (the fixture's JSON copy, read apart from the CSV reader)."""

from __future__ import annotations

import ast
import json
from typing import Any

from inspect_ai.model import ChatMessageUser
from support.helpers import V2_ROW, V2_ROW_CSV

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.options import LETTERS
from inspect_personamem.datasets.v2.records import read_questions
from inspect_personamem.datasets.v2.samples import V2Question, distance_bin, record_to_sample

ROW: dict[str, Any] = json.loads(V2_ROW.read_text(encoding="utf-8"))["row"]


def test_the_real_row_becomes_the_sample_the_task_sends() -> None:
    (record,) = read_questions(V2_ROW_CSV, "benchmark")
    sample = record_to_sample(V2Question(record, 0, "32k", end_index=12), 0, "user")
    query = ast.literal_eval(ROW["user_query"])["content"]
    assert sample.id == f"{ROW['persona_id']}:0"
    assert isinstance(sample.input, list) and len(sample.input) == 2
    asked, options = sample.input
    assert isinstance(asked, ChatMessageUser) and asked.text.startswith(query)
    correct, incorrect = ROW["correct_answer"], json.loads(ROW["incorrect_answers"])
    shown = list(sample.choices or [])
    assert sorted(shown) == sorted([correct, *incorrect])
    assert all(text in options.text for text in shown)
    assert isinstance(sample.target, str)
    assert shown[LETTERS.index(sample.target.strip("()"))] == correct
    metadata = sample.metadata or {}
    for label in ("pref_type", "topic_query", "conversation_scenario", "who"):
        assert metadata[label] == ROW[label]
    assert metadata["persona_id"] == int(ROW["persona_id"])
    distance = int(ROW["distance_from_related_snippet_to_query_32k"])
    assert metadata["distance_to_snippet"] == distance
    assert metadata["distance_bin"] == distance_bin(distance) == "16k-32k"
    assert AskedAt.of(metadata).history == ROW["chat_history_32k_link"]
