from __future__ import annotations

import csv
from pathlib import Path

import pytest
from support.helpers import EXCERPT, REAL_QUESTIONS, require

from inspect_personamem.datasets.v1.generator import write_questions
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.errors import PersonaMemDataError


def excerpt_rows() -> list[dict[str, str]]:
    with EXCERPT.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_real_rows_parse_with_typed_columns_and_category() -> None:
    records = read_questions(EXCERPT, "32k")
    assert len(records) == 8
    first = records[0]
    assert first.question_id == "acd74206-37dc-4756-94a8-b99a395d9a21"
    assert first.columns["persona_id"] == 0
    assert first.columns["end_index_in_shared_context"] == 182
    assert first.columns["distance_to_ref_proportion_in_context"] == "92.67%"
    assert first.columns["question_type"] == "recall_user_shared_facts"
    # 32k labels "acknowledge latest preferences" questions recall_user_shared_facts
    assert first.category == "acknowledge_latest_user_preferences"
    assert first.correct_letter == "c"
    assert first.options.texts[2].startswith("(c) It's great to see such innovative")
    assert list(first.columns) == list(excerpt_rows()[0])


def test_all_real_questions_parse() -> None:
    records = read_questions(require(REAL_QUESTIONS), "32k")
    assert len(records) == 589
    counts: dict[str, int] = {}
    for record in records:
        counts[record.category] = counts.get(record.category, 0) + 1
    assert counts == {
        "recall_user_shared_facts": 17,
        "acknowledge_latest_user_preferences": 129,
        "track_full_preference_evolution": 139,
        "revisit_reasons_behind_preference_updates": 99,
        "provide_preference_aligned_recommendations": 55,
        "generalize_to_new_scenarios": 57,
        "suggest_new_ideas": 93,
    }


def write_with(tmp_path: Path, field: str, value: str) -> tuple[Path, str]:
    rows = excerpt_rows()
    rows[3][field] = value
    path = tmp_path / "questions_32k.csv"
    write_questions(path, rows)
    return path, rows[3]["question_id"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("all_options", "['(a) x', '(b) y'", "neither JSON nor a Python literal"),
        ("all_options", "['(a) x', '(b) y', '(c) z']", "expected 4 options, found 3"),
        ("correct_answer", "(e)", "expected one of (a)-(d)"),
        ("correct_answer", "c", "expected one of (a)-(d)"),
        ("question_type", "recall_everything", "unknown question type 'recall_everything'"),
        ("end_index_in_shared_context", "12.5", "expected an integer"),
        ("persona_id", "", "expected an integer"),
    ],
)
def test_bad_field_names_file_question_and_field(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    path, question_id = write_with(tmp_path, field, value)
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "32k")
    text = str(info.value)
    assert str(path) in text and question_id in text and f"field '{field}'" in text
    assert message in text


def test_label_of_another_split_is_unknown(tmp_path: Path) -> None:
    # valid in 128k, unknown in 32k: the mapping is per split
    rows = excerpt_rows()
    for row in rows:
        row["question_type"] = "revisit_reasons_behind_preference_updates"
    path = tmp_path / "q.csv"
    write_questions(path, rows)
    with pytest.raises(PersonaMemDataError, match="unknown question type"):
        read_questions(path, "32k")
    assert read_questions(path, "128k")[3].category == "revisit_reasons_behind_preference_updates"


def test_duplicate_question_id_names_both_lines(tmp_path: Path) -> None:
    rows = excerpt_rows()
    rows[5]["question_id"] = rows[1]["question_id"]
    path = tmp_path / "q.csv"
    write_questions(path, rows)
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "32k")
    # rows[i] starts on line i + 2 (the header is line 1; no row spans lines here)
    assert str(info.value) == (
        f"{path}, line 7, question_id {rows[1]['question_id']}, field 'question_id': "
        "duplicate question id: also on line 3"
    )


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_question_text(tmp_path: Path, text: str) -> None:
    path, question_id = write_with(tmp_path, "user_question_or_message", text)
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "32k")
    assert str(info.value) == (
        f"{path}, line 5, question_id {question_id}, field 'user_question_or_message': "
        "empty question text"
    )


def test_a_byte_that_is_not_utf8_names_line_question_and_field(tmp_path: Path) -> None:
    path, question_id = write_with(tmp_path, "topic", "caf\u00e9")
    path.write_bytes(path.read_bytes().replace("caf\u00e9".encode(), b"caf\xe9"))  # Latin-1
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "32k")
    assert str(info.value) == (
        f"{path}, line 5, question_id {question_id}, field 'topic': byte 0xe9 at character 4 "
        "is not UTF-8 (the file must be UTF-8; re-save it as UTF-8)"
    )


def test_a_byte_that_is_not_utf8_in_the_question_id_is_shown_escaped(tmp_path: Path) -> None:
    path, question_id = write_with(tmp_path, "question_id", "q\u00e9")
    path.write_bytes(path.read_bytes().replace("q\u00e9".encode(), b"q\xe9"))
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "32k")
    assert "line 5, question_id q\\xe9, field 'question_id': byte 0xe9" in str(info.value)


def test_a_byte_order_mark_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_bytes(b"\xef\xbb\xbf" + EXCERPT.read_bytes())
    assert [r.question_id for r in read_questions(path, "32k")] == [
        r.question_id for r in read_questions(EXCERPT, "32k")
    ]


def test_missing_column(tmp_path: Path) -> None:
    text = EXCERPT.read_text(encoding="utf-8").replace("correct_answer", "answer", 1)
    path = tmp_path / "q.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PersonaMemDataError, match="missing columns: correct_answer"):
        read_questions(path, "32k")


def test_truncated_csv_row(tmp_path: Path) -> None:
    raw = EXCERPT.read_bytes()
    path = tmp_path / "q.csv"
    path.write_bytes(raw[: raw.rindex(b",")])  # last row loses its last field
    with pytest.raises(PersonaMemDataError, match="fewer fields than the header") as info:
        read_questions(path, "32k")
    assert "field 'end_index_in_shared_context'" in str(info.value)


def test_negative_end_index_is_read_as_is(tmp_path: Path) -> None:
    # the policy for it is applied, and counted, when checking against the contexts
    path, _ = write_with(tmp_path, "end_index_in_shared_context", "-3")
    assert read_questions(path, "32k")[3].end_index == -3


def test_row_with_more_fields_than_the_header(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_bytes(EXCERPT.read_bytes() + b",surplus")
    with pytest.raises(PersonaMemDataError, match="row has 1 more fields than the header"):
        read_questions(path, "32k")


TOO_LONG = (
    "a field longer than 131,072 characters, the most the csv module reads (a quote left "
    "open runs a field on into the rows after it)"
)


@pytest.mark.parametrize(
    "value",
    ["x" * 140_000, "['(a) x, \"y\", z', " * 10_000 + "]"],
    ids=["unquoted", "quoted-with-commas-and-quotes"],
)
def test_a_field_over_the_csv_modules_limit_names_line_and_field(
    tmp_path: Path, value: str
) -> None:
    path, _ = write_with(tmp_path, "all_options", value)
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "32k")
    assert str(info.value) == f"{path}, line 5, field 'all_options': {TOO_LONG}"
    assert csv.field_size_limit() == 131_072  # the process's limit is left as it was
