from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
from support.helpers import EXCERPT

from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.generator import contexts_for_questions, write_contexts
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions
from inspect_personamem.datasets.v1.samples import (
    build_dataset,
    check_against_contexts,
    distance_bin,
    record_to_sample,
)
from inspect_personamem.errors import PersonaMemDataError


def records_and_store(tmp_path: Path, extra: int = 0) -> tuple[list[QuestionRecord], ContextStore]:
    records = read_questions(EXCERPT, "32k")
    sizes = contexts_for_questions([r.columns for r in records], extra=extra)
    path = tmp_path / "contexts.jsonl"
    write_contexts(path, sizes)
    return records, ContextStore(path)


def test_sample_input_is_the_official_final_message() -> None:
    record = read_questions(EXCERPT, "32k")[0]
    sample = record_to_sample(record, shuffle=None)
    assert sample.id == record.question_id
    assert sample.input == (
        f"{record.question}\n\n{INSTRUCTION}\n\n{record.columns['all_options']}"
    )
    assert sample.target == "(c)"
    metadata = sample.metadata or {}
    # every column of the question file, with the category beside the raw type
    assert {k: metadata[k] for k in record.columns} == record.columns
    assert metadata["category"] == "acknowledge_latest_user_preferences"
    assert metadata["question_type"] == "recall_user_shared_facts"
    assert metadata["distance_bin"] == "4-6"
    assert list(sample.choices or []) == list(record.options.bodies())
    assert metadata["option_order"] == [0, 1, 2, 3] and metadata["shuffle_seed"] is None


def test_shuffle_reorders_reletters_and_remaps_the_target() -> None:
    records = read_questions(EXCERPT, "32k")
    moved = 0
    for record in records:
        sample = record_to_sample(record, shuffle=3)
        metadata = sample.metadata or {}
        order = metadata["option_order"]
        shown = list(sample.choices or [])
        target = str(sample.target).strip("()")
        # the correct option's text is still the one the target points at
        correct_body = record.options.bodies()[ord(record.correct_letter) - ord("a")]
        assert shown[ord(target) - ord("a")] == correct_body
        assert shown == [record.options.bodies()[o] for o in order]
        # rendered in the row's own serialisation style
        assert str(sample.input).endswith(record.options.permuted(tuple(order)).render())
        assert sample.input == record_to_sample(record, shuffle=3).input
        moved += order != [0, 1, 2, 3]
    assert moved >= 5


def test_dataset_keeps_record_order_and_ids() -> None:
    records = read_questions(EXCERPT, "32k")
    dataset = build_dataset(records, "personamem_32k", shuffle=None)
    assert [s.id for s in dataset] == [r.question_id for r in records]
    assert dataset.name == "personamem_32k"


def test_check_passes_valid_records(tmp_path: Path) -> None:
    records, store = records_and_store(tmp_path)
    assert check_against_contexts(records, store, EXCERPT, "error") == records


def test_unknown_context_id(tmp_path: Path) -> None:
    records, _ = records_and_store(tmp_path)
    other = tmp_path / "other.jsonl"
    write_contexts(other, {"someone-else": 3})
    with pytest.raises(PersonaMemDataError) as info:
        check_against_contexts(records, ContextStore(other), EXCERPT, "official")
    text = str(info.value)
    assert records[0].question_id in text and "field 'shared_context_id'" in text
    assert "unknown context id" in text and str(EXCERPT) in text


def test_context_id_on_a_line_but_not_its_first_key(tmp_path: Path) -> None:
    records, store = records_and_store(tmp_path)
    lines = store.path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = '{"meta": 1, ' + lines[0][1:]  # the first question's context id, now second
    store.path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(PersonaMemDataError) as info:
        check_against_contexts(records, ContextStore(store.path), EXCERPT, "official")
    assert str(info.value) == (
        f"{EXCERPT}, line 2, question_id {records[0].question_id}, field 'shared_context_id': "
        f"unknown context id {records[0].context_id!r} ({store.path}, line 1 holds it, but "
        "not as its first key (that is 'meta'): each line must be a single-key object "
        "{context_id: [messages]})"
    )


def test_end_index_zero_is_an_error(tmp_path: Path) -> None:
    records, store = records_and_store(tmp_path)
    zero = replace(records[3], columns={**records[3].columns, "end_index_in_shared_context": 0})
    with pytest.raises(PersonaMemDataError) as info:
        check_against_contexts([records[0], zero], store, EXCERPT, "official")
    assert str(info.value) == (
        f"{EXCERPT}, line 5, question_id {zero.question_id}, field "
        "'end_index_in_shared_context': end index 0 leaves the question no history at all "
        "(the no-history baseline under another name; for that baseline use history=none)"
    )


def test_truncated_context_line_names_the_question(tmp_path: Path) -> None:
    records, store = records_and_store(tmp_path)
    lines = store.path.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0][: len(lines[0]) // 2]  # the first question's context, cut short
    store.path.write_bytes(b"".join(lines))
    with pytest.raises(PersonaMemDataError) as info:
        check_against_contexts(records, ContextStore(store.path), EXCERPT, "official")
    text = str(info.value)
    assert text.startswith(f"{EXCERPT}, line 2, question_id {records[0].question_id}")
    assert "field 'shared_context_id'" in text and "line 1" in text and "not valid JSON" in text


def test_end_index_beyond_the_context(tmp_path: Path) -> None:
    records, store = records_and_store(tmp_path, extra=0)
    bigger = QuestionRecord(
        columns={**records[2].columns, "end_index_in_shared_context": records[2].end_index + 500},
        category=records[2].category,
        options=records[2].options,
        correct_letter=records[2].correct_letter,
    )
    with pytest.raises(PersonaMemDataError) as info:
        check_against_contexts([bigger], store, EXCERPT, "official")
    assert "field 'end_index_in_shared_context'" in str(info.value)
    assert "beyond the context" in str(info.value) and bigger.question_id in str(info.value)


def negative(record: QuestionRecord) -> QuestionRecord:
    return QuestionRecord(
        columns={**record.columns, "end_index_in_shared_context": -4},
        category=record.category,
        options=record.options,
        correct_letter=record.correct_letter,
    )


def test_negative_end_index_policies(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    records, store = records_and_store(tmp_path)
    mixed = [negative(records[0]), records[1], negative(records[2])]
    with pytest.raises(PersonaMemDataError, match="negative end index -4"):
        check_against_contexts(mixed, store, EXCERPT, "error")
    with caplog.at_level(logging.WARNING):
        kept = check_against_contexts(mixed, store, EXCERPT, "official")
    assert kept == mixed
    assert "2 question(s) have a negative end_index_in_shared_context (kept" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        skipped = check_against_contexts(mixed, store, EXCERPT, "skip")
    assert skipped == [records[1]]
    assert "2 question(s)" in caplog.text and "skipped" in caplog.text
    assert records[0].question_id in caplog.text


@pytest.mark.parametrize(
    ("sessions", "label"),
    [(0, "<1"), (1, "1"), (2, "2-3"), (3, "2-3"), (4, "4-6"), (7, "7-10"), (20, "11-20"),
     (21, "21-40"), (60, "41+")],
)  # fmt: skip
def test_distance_bins(sessions: int, label: str) -> None:
    assert distance_bin(sessions) == label


def test_final_user_message_is_the_official_text() -> None:
    """Written out literally (not from INSTRUCTION), so a change to the prompt is caught."""
    from inspect_personamem.datasets.v1.prompt import final_user_message

    assert final_user_message("I moved to Lisbon.", "['(a) x', '(b) y']") == (
        "I moved to Lisbon.\n\nFind the most appropriate model response and give your final "
        "answer (a), (b), (c), or (d) after the special token <final_answer>.\n\n"
        "['(a) x', '(b) y']"
    )
