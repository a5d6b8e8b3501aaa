"""The PersonaMem-v2 generator writes the released layout, at the real shapes, in the
formats the data layer reads."""

from __future__ import annotations

import ast
import csv
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from support.evidence import located

from inspect_personamem.data.provenance import MARK
from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.generator import (
    BENCHMARK_SHAPE,
    FORGET,
    PREF_TYPES,
    V2Shape,
    generate_v2,
    system_message,
)
from inspect_personamem.datasets.v2.histories import HistoryStore
from inspect_personamem.datasets.v2.records import COLUMNS, V2Record
from inspect_personamem.datasets.v2.spec import V2Source

SHAPE = dataclasses.replace(BENCHMARK_SHAPE, personas=4, message_chars=40)
"""Real message counts and questions per persona, in few personas and short messages."""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[V2Record]]:
    folder = tmp_path_factory.mktemp("v2")
    generate_v2(folder, shape=SHAPE, seed=3)
    return folder, load_questions(V2Source(data_dir=folder)).records


def history_file(folder: Path, link: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((folder / link).read_text(encoding="utf-8"))
    return value


def test_the_benchmark_shape_is_the_released_one() -> None:
    assert BENCHMARK_SHAPE.personas == 200
    assert (BENCHMARK_SHAPE.min_messages, BENCHMARK_SHAPE.max_messages) == (162, 293)
    assert (BENCHMARK_SHAPE.min_questions, BENCHMARK_SHAPE.max_questions) == (6, 42)
    assert set(PREF_TYPES) == {
        "ask_to_forget",
        "neutral_preferences",
        "anti_stereotypical_pref",
        "therapy_background",
        "health_and_medical_conditions",
        "stereotypical_pref",
        "sensitive_info",
    }


def test_the_released_layout_and_shape(generated: tuple[Path, list[V2Record]]) -> None:
    folder, records = generated
    by_persona: dict[int, list[V2Record]] = {}
    for record in records:
        by_persona.setdefault(record.persona_id, []).append(record)
    assert len(by_persona) == SHAPE.personas
    for persona_id, questions in by_persona.items():
        assert SHAPE.min_questions <= len(questions) <= SHAPE.max_questions
        (short,) = {r.chat_history_32k_link for r in questions}
        (long,) = {r.chat_history_128k_link for r in questions}
        assert short.startswith("data/chat_history_32k/chat_history_")
        assert long.startswith("data/chat_history_128k/chat_history_")
        assert short.endswith(f"_persona{persona_id}.json") and long.endswith(
            f"_persona{persona_id}.json"
        )
        assert questions[0].raw_persona_file.startswith("data/raw_data/raw_data_")
        messages = history_file(folder, short)["chat_history"]
        assert SHAPE.min_messages <= len(messages) <= SHAPE.max_messages
        size = len(history_file(folder, long)["chat_history"])
        assert size == pytest.approx(len(messages) * SHAPE.long_factor, abs=2)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert len(files) == 2 + 2 * SHAPE.personas and files[0] == "benchmark/text/benchmark.csv"
    assert files[-1] == MARK  # the record that the package generated them


def test_histories_open_with_the_persona_card_and_do_not_strictly_alternate(
    generated: tuple[Path, list[V2Record]],
) -> None:
    folder, records = generated
    ends = set()
    for record in {r.persona_id: r for r in records}.values():
        for link in (record.chat_history_32k_link, record.chat_history_128k_link):
            history = history_file(folder, link)
            messages = history["chat_history"]
            assert list(history) == ["metadata", "chat_history"]
            assert history["metadata"]["total_messages"] == len(messages)
            assert history["metadata"]["persona_id"] == record.persona_id
            assert messages[0] == {
                "role": "system",
                "content": system_message(
                    json.dumps(record.expanded_persona, indent=2, ensure_ascii=False)
                ),
            }
            roles = [m["role"] for m in messages[1:]]
            assert "system" not in roles and roles[0] == "user"
            # a request to forget gets no reply
            assert ("user", "user") in zip(roles[:-1], roles[1:], strict=True)
            forgets = [m for m in messages if m["content"].startswith(FORGET)]
            assert forgets and all(m["role"] == "user" for m in forgets)
            ends.add(roles[-1])
    assert ends == {"user", "assistant"}  # a history may end on a user message


def test_every_cell_is_of_its_kind(generated: tuple[Path, list[V2Record]]) -> None:
    folder, records = generated
    with (folder / "benchmark/text/benchmark.csv").open(newline="", encoding="utf-8") as file:
        raw = list(csv.DictReader(file))
    assert tuple(raw[0]) == COLUMNS
    for row in raw:
        with pytest.raises(json.JSONDecodeError):
            json.loads(row["user_query"])  # a Python dict literal, as released
        assert ast.literal_eval(row["user_query"])["role"] == "user"
    assert {r["updated"] for r in raw} == {"True", "False"}
    assert "" in {r["prev_pref"] for r in raw}
    assert {type(r.short_persona) for r in records} == {str}
    assert any(r.short_persona.startswith("{'persona': ") for r in records)
    assert any(not r.short_persona.startswith("{") for r in records)
    assert {r.who for r in records} == {"self", "others"}
    assert {r.pref_type for r in records} <= set(PREF_TYPES)
    assert all(len(r.incorrect_answers) == 3 for r in records)
    assert all((r.prev_pref is not None) == r.updated for r in records)
    assert all(r.sensitive_info == (r.pref_type == "sensitive_info") for r in records)


def test_snippets_and_token_counts_match_the_histories(
    generated: tuple[Path, list[V2Record]],
) -> None:
    folder, records = generated
    for record in records:
        short = history_file(folder, record.chat_history_32k_link)
        long = history_file(folder, record.chat_history_128k_link)
        for message in record.related_conversation_snippet:
            assert message in short["chat_history"] and message in long["chat_history"]
        assert record.total_tokens_in_chat_history_32k == short["metadata"]["final_token_count"]
        assert record.total_tokens_in_chat_history_128k == long["metadata"]["final_token_count"]
        assert record.num_persona_relevant_tokens_128k == long["metadata"]["num_relevant_tokens"]
        assert (
            record.num_persona_relevant_tokens_128k + record.num_persona_irrelevant_tokens_128k
            == record.total_tokens_in_chat_history_128k
        )
        assert record.distance_from_related_snippet_to_query_32k >= 0
        assert (
            record.distance_from_related_snippet_to_query_32k
            <= record.distance_from_related_snippet_to_query_128k
            < record.total_tokens_in_chat_history_128k
        )
        if record.pref_type == "sensitive_info":
            assert record.distance_from_related_snippet_to_query_128k == 0


@pytest.mark.parametrize("length", ["32k", "128k"])
def test_the_v2_rule_locates_every_snippet_in_the_history(
    generated: tuple[Path, list[V2Record]], length: str
) -> None:
    """Every snippet is non-empty and each of its messages found once in the history:
    what `history=evidence` shows and the retrieval runs check their items against."""
    folder, records = generated
    evidence = located("v2", folder, length=length)
    assert len(evidence) == len(records)
    for metadata, found in evidence.values():
        snippet = metadata["related_conversation_snippet"]
        assert snippet and found.located, found.where
        assert found.size == len(snippet)
        assert found.shown[0].role == "system"  # the persona card, then the snippet
        assert [(m.role, m.text) for m in found.shown[1:]] == [
            (m["role"], m["content"]) for m in snippet
        ]


def test_generated_histories_load_through_the_package(
    generated: tuple[Path, list[V2Record]],
) -> None:
    folder, records = generated
    store = HistoryStore(V2Source(data_dir=folder), "128k")
    messages = store.messages(records[0])
    assert messages[0].role == "system" and messages[0].text.startswith("You are an AI")
    assert store.messages(records[1]) is messages


def test_another_subset_and_the_same_seed_gives_the_same_files(tmp_path: Path) -> None:
    shape = V2Shape(2, 10, 12, 1, 2, 1.5, 30)
    first = generate_v2(tmp_path / "a", subset="train", shape=shape)
    second = generate_v2(tmp_path / "b", subset="train", shape=shape)
    assert first == tmp_path / "a/benchmark/text/train.csv"
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes().endswith(b"\n") and b"\r\n" not in first.read_bytes()
