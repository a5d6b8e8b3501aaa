"""PersonaMem-v2 question rows: the real row read back exactly, every malformed cell kind
named by file, line and column."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from support.helpers import V2_ROW, V2_ROW_CSV

from inspect_personamem.data.synthetic import write_table
from inspect_personamem.datasets.v2.generator import write_questions
from inspect_personamem.datasets.v2.records import COLUMNS, V2Record, read_questions
from inspect_personamem.errors import PersonaMemDataError

RELEASED_ORDER = [
    "persona_id",
    "chat_history_32k_link",
    "chat_history_128k_link",
    "raw_persona_file",
    "short_persona",
    "expanded_persona",
    "user_query",
    "correct_answer",
    "incorrect_answers",
    "topic_query",
    "preference",
    "topic_preference",
    "conversation_scenario",
    "pref_type",
    "related_conversation_snippet",
    "who",
    "updated",
    "prev_pref",
    "sensitive_info",
    "total_tokens_in_chat_history_32k",
    "total_tokens_in_chat_history_128k",
    "distance_from_related_snippet_to_query_32k",
    "distance_from_related_snippet_to_query_128k",
    "num_persona_relevant_tokens_32k",
    "num_persona_irrelevant_tokens_32k",
    "num_persona_relevant_tokens_128k",
    "num_persona_irrelevant_tokens_128k",
]
"""The 27 columns in the order PERSONAMEM_V2.md gives."""


def real_row() -> dict[str, Any]:
    row: dict[str, Any] = json.loads(V2_ROW.read_text(encoding="utf-8"))["row"]
    return row


def expected(column: str, value: Any) -> Any:
    """What the record holds for a cell `datasets` gave as `value`: the structured text
    cells parsed, the others as they are."""
    if column == "user_query":
        return ast.literal_eval(value)
    if column in ("incorrect_answers", "related_conversation_snippet"):
        return tuple(json.loads(value))
    if column == "expanded_persona":
        return json.loads(value)
    return value


def test_columns_are_the_27_in_the_released_order() -> None:
    assert tuple(RELEASED_ORDER) == COLUMNS
    assert [f.name for f in dataclasses.fields(V2Record)] == [*RELEASED_ORDER, "line"]


def test_the_real_row_reads_back_exactly() -> None:
    row = real_row()
    assert set(row) == set(COLUMNS)
    (record,) = read_questions(V2_ROW_CSV, "benchmark")
    for column in COLUMNS:
        value, want = getattr(record, column), expected(column, row[column])
        assert value == want, column
        assert type(value) is type(want), column  # an int is no bool, a bool no int
    assert record.line == 2
    assert record.prev_pref is None and record.updated is False and record.persona_id == 521
    assert record.short_persona.startswith("{'persona': \"A liberal Democrat")  # kept as text
    assert record.query == (
        "What are some calming morning routines that can help set a positive tone for the "
        "rest of the day?"
    )
    assert record.history_link("32k") == row["chat_history_32k_link"]
    assert record.history_link("128k") == row["chat_history_128k_link"]


def test_the_fixture_is_written_as_the_generator_writes(tmp_path: Path) -> None:
    """The CSV representation (datasets' and pandas', see tests/fixtures/README.md) is
    the generator's: both write the real row to the same bytes."""
    path = tmp_path / "benchmark.csv"
    write_questions(path, [real_row()])
    assert path.read_bytes() == V2_ROW_CSV.read_bytes()


def rows_file(tmp_path: Path, column: str, value: str) -> tuple[Path, int]:
    """The real row three times over, the second with `value` in `column`; the path and
    the second row's first line."""
    rows = [real_row() for _ in range(3)]
    rows[1][column] = value
    path = tmp_path / "benchmark.csv"
    write_questions(path, rows)
    first_row_lines = V2_ROW_CSV.read_bytes().count(b"\n") - 1  # less the header
    return path, 2 + first_row_lines


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("persona_id", "52a", "expected an integer, found '52a'"),
        ("persona_id", "", "expected an integer, found ''"),
        ("total_tokens_in_chat_history_32k", "31842.0", "expected an integer, found '31842.0'"),
        ("num_persona_irrelevant_tokens_128k", " 5", "expected an integer, found ' 5'"),
        ("user_query", "{'role': 'user', 'content': 'x'", "not a Python literal: "),
        ("user_query", '{"role": "user", "content": f"x"}', "not a Python literal: "),
        ("user_query", "{'role': 'assistant', 'content': 'x'}", "expected a dict {'role': 'user'"),
        ("user_query", "['user', 'x']", "expected a dict {'role': 'user'"),
        ("user_query", "{'role': 'user', 'content': 3}", "expected the content to be a string"),
        ("user_query", "{'role': 'user', 'content': ' '}", "empty question text"),
        ("incorrect_answers", "['a', 'b', 'c']", "not JSON (Expecting value: line 1 column 2"),
        ("incorrect_answers", '{"a": "b"}', "expected a JSON list of strings"),
        ("incorrect_answers", '["a", 2, "c"]', "expected a JSON list of strings"),
        ("incorrect_answers", '["a", "b"]', "expected 3 incorrect answers, found 2"),
        ("incorrect_answers", '["a", "b", "c", "d"]', "expected 3 incorrect answers, found 4"),
        ("related_conversation_snippet", '{"role": "user"}', "expected a JSON list"),
        ("related_conversation_snippet", '[{"role": "user"', "not JSON ("),
        ("expanded_persona", "[1, 2]", "expected a JSON object"),
        ("expanded_persona", "", "not JSON ("),
        ("updated", "false", "expected True or False, found 'false'"),
        ("updated", "1", "expected True or False, found '1'"),
        ("sensitive_info", "", "expected True or False, found ''"),
        ("who", "me", "expected self or others, found 'me'"),
        ("chat_history_32k_link", "", "expected a relative path inside the dataset"),
        ("chat_history_32k_link", "../../etc/passwd", "expected a relative path inside"),
        ("chat_history_128k_link", "/data/x.json", "expected a relative path inside"),
    ],
)
def test_a_malformed_cell_is_one_line_naming_file_line_and_column(
    tmp_path: Path, column: str, value: str, message: str
) -> None:
    path, line = rows_file(tmp_path, column, value)
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "benchmark")
    text = str(info.value)
    assert text.startswith(f"{path}, line {line}, field '{column}': {message}"), text
    assert "\n" not in text


def test_a_long_bad_cell_is_shown_by_its_start(tmp_path: Path) -> None:
    path, _ = rows_file(tmp_path, "expanded_persona", '["' + "x" * 5000 + '"]')
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "benchmark")
    assert str(info.value).endswith(f"""expected a JSON object, found '["{"x" * 58}...'""")


def test_the_count_of_incorrect_answers_is_checked_where_it_is_known(tmp_path: Path) -> None:
    path, _ = rows_file(tmp_path, "incorrect_answers", '["only one"]')
    assert read_questions(path, "train")[1].incorrect_answers == ("only one",)


def test_prev_pref_empty_is_none_and_text_is_text(tmp_path: Path) -> None:
    path, _ = rows_file(tmp_path, "prev_pref", "Used to skip breakfast")
    records = read_questions(path, "benchmark")
    assert [r.prev_pref for r in records] == [None, "Used to skip breakfast", None]


def test_true_reads_as_true(tmp_path: Path) -> None:
    path, _ = rows_file(tmp_path, "sensitive_info", "True")
    assert [r.sensitive_info for r in read_questions(path, "benchmark")] == [False, True, False]


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "benchmark.csv"
    write_table(path, [c for c in COLUMNS if c != "who"], [], line_end="\n", last_line_end=True)
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "benchmark")
    assert str(info.value) == f"{path}: missing columns: who"


def test_columns_are_found_by_name_in_any_order(tmp_path: Path) -> None:
    path = tmp_path / "reordered.csv"
    path.write_bytes(V2_ROW_CSV.read_bytes())
    (original,) = read_questions(path, "benchmark")
    write_table(path, COLUMNS[::-1], [real_row()], line_end="\r\n", last_line_end=False)
    assert read_questions(path, "benchmark") == [original]


def test_a_byte_that_is_not_utf8_names_line_and_column(tmp_path: Path) -> None:
    path, line = rows_file(tmp_path, "preference", "caf\u00e9 daily")
    path.write_bytes(path.read_bytes().replace("caf\u00e9".encode(), b"caf\xe9"))
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "benchmark")
    assert str(info.value) == (
        f"{path}, line {line}, field 'preference': byte 0xe9 at character 4 is not UTF-8 "
        "(the file must be UTF-8; re-save it as UTF-8)"
    )


def test_a_row_with_fewer_fields_names_the_first_missing(tmp_path: Path) -> None:
    raw = V2_ROW_CSV.read_bytes().rstrip(b"\n")
    path = tmp_path / "benchmark.csv"
    path.write_bytes(raw[: raw.rindex(b",")] + b"\n")
    with pytest.raises(PersonaMemDataError) as info:
        read_questions(path, "benchmark")
    assert str(info.value) == (
        f"{path}, line 2, field 'num_persona_irrelevant_tokens_128k': value missing: the row "
        "has fewer fields than the header"
    )
