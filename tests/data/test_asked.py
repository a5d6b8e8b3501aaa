"""A sample's `AskedAt`: written to its metadata under one key and read back, from a
running sample or a log, and from a log written before the key."""

from __future__ import annotations

import json

from inspect_personamem.data.asked import KEY, AskedAt


def test_it_round_trips_through_a_log_s_json() -> None:
    asked = AskedAt("persona-3", 41, "What should I cook?", (41, 17))
    metadata = json.loads(json.dumps({"category": "x", **asked.metadata()}))
    assert list(metadata) == ["category", KEY]
    assert AskedAt.of(metadata) == asked


def test_a_log_written_before_the_key_is_read_from_its_old_columns() -> None:
    old = {
        "shared_context_id": "c1",
        "end_index_in_shared_context": 12,
        "user_question_or_message": "Hi",
        "cache_prefix_ends": [12, 5],
    }
    assert AskedAt.of(old) == AskedAt("c1", 12, "Hi", (12, 5))
    del old["cache_prefix_ends"]
    assert AskedAt.of(old).cache_prefix_ends == ()
