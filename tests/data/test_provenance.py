"""Which files of a data folder the package generated: recorded at their size, so a file
copied over a generated one is real again (`data/provenance.py`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspect_personamem.data.provenance import MARK, generated_by, mark_generated
from inspect_personamem.errors import PersonaMemDataError


def test_a_generated_file_is_known_by_what_wrote_it_until_it_changes_size(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    questions, history = tmp_path / "questions.csv", tmp_path / "sub" / "history.jsonl"
    questions.write_text("id\n1\n")
    history.write_text("{}\n")
    mark_generated(tmp_path, questions, "generator v1")
    mark_generated(tmp_path, history, "generator v2")
    assert generated_by(tmp_path, "questions.csv") == "generator v1"
    assert generated_by(tmp_path, "sub/history.jsonl") == "generator v2"
    assert generated_by(tmp_path, "other.csv") is None
    questions.write_text("id\n1\n2\n")  # a real file copied over the generated one
    assert generated_by(tmp_path, "questions.csv") is None


def test_a_folder_without_a_mark_holds_no_generated_file(tmp_path: Path) -> None:
    (tmp_path / "questions.csv").write_text("id\n")
    assert generated_by(tmp_path, "questions.csv") is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "not the package's record of generated files (JSONDecodeError"),
        ('{"other": 1}', "not the package's record of generated files (KeyError"),
        ('{"files": {"a.csv": {"by": "x"}}}', "field 'files' is not a mapping of file to"),
        ('{"files": []}', "field 'files' is not a mapping of file to"),
    ],
)
def test_a_mark_that_is_not_the_packages_is_an_error_naming_it(
    tmp_path: Path, text: str, problem: str
) -> None:
    (tmp_path / MARK).write_text(text)
    with pytest.raises(PersonaMemDataError, match=re.escape(problem)) as error:
        generated_by(tmp_path, "a.csv")
    assert str(tmp_path / MARK) in str(error.value)
