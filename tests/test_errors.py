"""The package's own errors: located in the file, printed as their message alone, and
still `ValueError`s for callers that catch those (`errors.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_personamem.errors import (
    PersonaMemArgumentError,
    PersonaMemDataError,
    PersonaMemError,
)


def test_a_data_error_names_the_file_line_question_and_field_in_that_order() -> None:
    error = PersonaMemDataError.at(
        Path("data/questions_32k.csv"), "not a letter", question_id="q7", field="correct_answer",
        line=12,
    )  # fmt: skip
    assert str(error) == (
        "data/questions_32k.csv, line 12, question_id q7, field 'correct_answer': not a letter"
    )
    assert str(PersonaMemDataError.at("f.jsonl", "empty")) == "f.jsonl: empty"


def test_every_error_is_a_value_error_printed_without_rich_markup() -> None:
    """Inspect prints `message` through rich: a `[...]` in it stays as written."""
    error = PersonaMemArgumentError("history=[rag]: unknown value")
    assert isinstance(error, ValueError) and isinstance(error, PersonaMemError)
    assert str(error) == "history=[rag]: unknown value"
    assert error.message == r"history=\[rag]: unknown value"
    with pytest.raises(ValueError, match="unknown value"):
        raise PersonaMemDataError.at("f.csv", "unknown value")


def test_the_inspect_command_prints_them_as_their_message_alone() -> None:
    """Inspect's CLI hook prints a `PrerequisiteError` without a traceback; its exact
    class is private to Inspect, so this checks by the name the hook looks for."""
    names = {cls.__name__ for cls in PersonaMemError.__mro__}
    assert "PrerequisiteError" in names
