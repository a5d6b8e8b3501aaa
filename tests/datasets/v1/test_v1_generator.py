"""The generator writes files in the real files' formats, at any scale, each question's
evidence where the real data put it: `distance_to_ref_in_blocks - 1` sessions before its
own, at its token distance, where the v1 rule locates it."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from support.helpers import EXCERPT, REAL_QUESTIONS, require

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.fitting import write_fitting_contexts
from inspect_personamem.datasets.v1.generator import (
    SHAPES,
    context_sizes,
    evidence_marker,
    generate_split,
    text_tokens,
    write_contexts,
)
from inspect_personamem.datasets.v1.options import parse_options
from inspect_personamem.datasets.v1.records import COLUMNS, read_questions
from inspect_personamem.datasets.v1.samples import check_against_contexts

FORMATS = {
    "question_id": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    "shared_context_id": re.compile(r"[0-9a-f]{64}"),
    "distance_to_ref_proportion_in_context": re.compile(r"[0-9]+\.[0-9]{2}%"),
    "correct_answer": re.compile(r"\([a-d]\)"),
    "topic": re.compile(r"[a-z]+(?:[A-Z][a-z]+)*"),
}


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_columns_and_formats_match_the_real_file(tmp_path: Path) -> None:
    questions, _ = generate_split(
        tmp_path, "32k", contexts=4, min_messages=40, max_messages=50, questions=30
    )
    real, fake = rows(EXCERPT), rows(questions)
    assert tuple(real[0]) == tuple(COLUMNS) == tuple(fake[0])
    for sample in (real, fake):
        for row in sample:
            for column, pattern in FORMATS.items():
                assert pattern.fullmatch(row[column]), (column, row[column])
    raw = questions.read_bytes()
    for data, lines in ((raw, 31), (EXCERPT.read_bytes(), 9)):
        # CRLF only, no newline after the last row
        assert data.count(b"\r\n") == data.count(b"\n") == lines - 1
        assert not data.endswith(b"\n")
    styles = {parse_options(row["all_options"]).style for row in fake}
    assert styles == {"json", "python"}


def test_contexts_have_the_real_quirks(tmp_path: Path) -> None:
    _, contexts = generate_split(
        tmp_path, "128k", contexts=2, min_messages=300, max_messages=320, questions=10, sessions=6
    )
    lines = contexts.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    messages = next(iter(json.loads(lines[0]).values()))
    roles = [m["role"] for m in messages]
    assert 300 <= len(messages) <= 320
    assert roles.count("system") >= 6 and roles[0] == "system"
    assert "system" in roles[len(roles) // 2 :]  # system messages mid-history
    assert any(
        a == b == "user" for a, b in zip(roles[:-1], roles[1:], strict=True)
    )  # repeated roles
    texts = [m["content"] for m in messages]
    assert any(t.startswith("[Original_Sentence]: ") for t in texts)
    assert any("e\u0301" in t for t in texts)  # not Unicode-normalised
    assert any(not t.startswith(("User: ", "Assistant: ", "Current user", "[")) for t in texts)


def test_generated_split_loads_through_the_package(tmp_path: Path) -> None:
    questions, contexts = generate_split(
        tmp_path, "1M", contexts=3, min_messages=20, max_messages=30, questions=12
    )
    records = read_questions(questions, "1M")
    assert len(records) == 12
    assert check_against_contexts(records, ContextStore(contexts), questions, "error") == records


def test_shapes_are_those_of_the_released_splits() -> None:
    assert (SHAPES["32k"].contexts, SHAPES["32k"].questions) == (37, 589)
    assert (SHAPES["128k"].min_messages, SHAPES["128k"].max_messages) == (590, 846)
    assert (SHAPES["1M"].contexts, SHAPES["1M"].questions) == (31, 2674)


def marked(evidence: Evidence, question_id: str) -> list[str]:
    """The texts of the evidence's messages that carry the question's marker."""
    return [m.text for m in evidence.shown if evidence_marker(question_id) in m.text]


def test_every_question_has_its_evidence_message_where_the_rule_locates_it(
    tmp_path: Path,
) -> None:
    sizes = context_sizes(4, 40, 60)
    questions, contexts = generate_split(
        tmp_path, "32k", contexts=4, min_messages=40, max_messages=60, questions=40
    )
    store = ContextStore(contexts)
    records = read_questions(questions, "32k")
    placed: dict[str, set[int]] = {context_id: set() for context_id in sizes}
    for record in records:
        columns = record.columns
        evidence = VERSIONS["v1"].evidence(columns, store)
        assert evidence.located, evidence.where
        [text] = marked(evidence, record.question_id)
        said = record.question.removeprefix("User: ")
        assert text == f"User: {said} {evidence_marker(record.question_id)}"
        ((start, _),) = evidence.spans
        position = start + [m.text for m in evidence.shown].index(text)
        placed[record.context_id].add(position)
        assert evidence.rule == "tokens" and f"message {position}," in evidence.where
        # counted as the authors count: contents joined by spaces, the question added
        contents = [m.text for m in store.history(record.context_id, record.end_index)]
        question = text_tokens(len(record.question))
        tokens = text_tokens(len(" ".join(contents))) + question
        distance = tokens - text_tokens(len(" ".join(contents[:position])))
        assert columns["context_length_in_letters"] == len(" ".join(contents))
        assert columns["context_length_in_tokens"] == tokens
        assert columns["distance_to_ref_in_tokens"] == distance
        proportion = columns["distance_to_ref_proportion_in_context"]
        assert proportion == f"{100 * distance / tokens:.2f}%"
        # d counts the question's own session as the first
        starts = session_starts(
            [m.role for m in store.history(record.context_id, record.end_index)]
        )
        assert columns["distance_to_ref_in_blocks"] == len(starts) - starts.index(start)
        assert position < record.end_index
    # each question's message in a slot of its own, which held a user message: the
    # histories are the plain ones (no evidence) but there
    assert sum(len(positions) for positions in placed.values()) == len(records)
    plain = tmp_path / "plain.jsonl"
    write_contexts(plain, sizes)
    for context_id, positions in placed.items():
        before, after = ContextStore(plain).messages(context_id), store.messages(context_id)
        pairs = enumerate(zip(before, after, strict=True))
        changed = {i for i, (a, b) in pairs if (a.role, a.text) != (b.role, b.text)}
        assert changed == positions
        assert {before[i].role for i in positions} == {"user"}


def test_a_context_too_small_for_its_questions_is_refused_naming_it(tmp_path: Path) -> None:
    """Three user messages in all, and four questions to hold."""
    [context_id] = context_sizes(1, 6, 6)
    with pytest.raises(ValueError, match=f"context {context_id}: no slot before question 3"):
        generate_split(tmp_path, "32k", contexts=1, min_messages=6, max_messages=6, questions=4)


def test_the_token_walk_finds_each_evidence_session_as_the_real_data_place_it(
    tmp_path: Path,
) -> None:
    """Histories of 20 sessions, as in 128k: the session located from the token distance
    is the one holding the question's evidence message, d - 1 before its own, for every
    question, up to d = 20 (the largest of the real 128k questions); d sessions back
    (the earlier rule) holds it for none."""
    questions, contexts = generate_split(
        tmp_path, "128k", contexts=3, min_messages=400, max_messages=500, questions=160,
        message_chars=300, sessions=20, seed=2,
    )  # fmt: skip
    store = ContextStore(contexts)
    distances = set()
    for record in read_questions(questions, "128k"):
        history = store.history(record.context_id, record.end_index)
        marker = evidence_marker(record.question_id)
        [position] = [i for i, m in enumerate(history) if marker in m.text]
        starts = session_starts([m.role for m in history])
        holding = max(i for i, start in enumerate(starts) if start <= position)
        distance = int(record.columns["distance_to_ref_in_blocks"])
        distances.add(distance)
        evidence = VERSIONS["v1"].evidence(record.columns, store)
        assert evidence.rule == "tokens"
        assert evidence.spans == ((starts[holding], _end(starts, holding, len(history))),)
        assert len(starts) - 1 - holding == distance - 1
        earlier = len(starts) - 1 - distance  # the earlier rule's session
        assert earlier != holding
    assert max(distances) == 20 and min(distances) == 1


def _end(starts: list[int], session: int, size: int) -> int:
    return starts[session + 1] if session + 1 < len(starts) else size


@pytest.mark.parametrize("source", ["excerpt", pytest.param("real", marks=pytest.mark.slow)])
def test_histories_fitting_real_rows_hold_each_questions_evidence(
    tmp_path: Path, source: str
) -> None:
    """What `try --questions` writes: the real distances located, each evidence session
    holding its question's message."""
    records = read_questions(EXCERPT if source == "excerpt" else require(REAL_QUESTIONS), "32k")
    path = tmp_path / "contexts.jsonl"
    write_fitting_contexts(path, [record.columns for record in records])
    store = ContextStore(path)
    for record in records:
        evidence = VERSIONS["v1"].evidence(record.columns, store)
        assert evidence.located, (record.question_id, evidence.where)
        assert len(marked(evidence, record.question_id)) == 1
        # the rows' token counts are of the real histories: their sessions locate it
        assert evidence.rule == "sessions" and "is not the history's" in evidence.where
