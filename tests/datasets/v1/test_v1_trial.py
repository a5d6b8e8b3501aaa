"""What `inspect-personamem try` writes of PersonaMem (`datasets/v1/trial.py`): the split
given, else the question file's, else 32k, refused before anything is written where it
cannot be told; a real question file copied byte for byte beside histories that fit it;
else a synthetic split."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.helpers import EXCERPT

from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.datasets.v1.trial import trial, write_split
from inspect_personamem.errors import PersonaMemArgumentError, PersonaMemDataError


def test_the_split_is_the_one_given_else_the_question_files_else_32k(tmp_path: Path) -> None:
    named = tmp_path / "questions_128k.csv"
    assert trial(None, None, count=10, seed=0, task="personamem").task == (
        "inspect_personamem/personamem_32k"
    )
    assert trial(named, None, count=10, seed=0, task="personamem").task == (
        "inspect_personamem/personamem_128k"
    )
    assert trial(named, "1M", count=10, seed=0, task="x").task == "inspect_personamem/x_1M"
    assert trial(None, None, count=10, seed=0, task="p").described == "generated"
    assert trial(named, None, count=10, seed=0, task="p").described == (
        "real questions, generated histories"
    )


def test_a_split_that_cannot_be_told_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    with pytest.raises(PersonaMemArgumentError) as info:
        trial(EXCERPT, None, count=10, seed=0, task="personamem")
    assert str(info.value) == f"cannot tell the split of {EXCERPT} from its name; pass --split"
    with pytest.raises(ValueError, match="Unknown PersonaMem split '64k'"):
        trial(None, "64k", count=10, seed=0, task="personamem")
    assert list(tmp_path.iterdir()) == []


def test_a_real_question_file_is_copied_byte_for_byte_beside_fitting_histories(
    tmp_path: Path,
) -> None:
    given = tmp_path / "given" / "questions_32k.csv"
    given.parent.mkdir()
    shutil.copyfile(EXCERPT, given)
    made = trial(given, None, count=10, seed=0, task="personamem")
    written = made.write(tmp_path / "data")
    assert written == tmp_path / "data" / "questions_32k.csv"
    assert written.read_bytes() == EXCERPT.read_bytes()
    contexts = (tmp_path / "data" / "shared_contexts_32k.jsonl").read_text(encoding="utf-8")
    ids = {r.columns["shared_context_id"] for r in read_questions(EXCERPT, "32k")}
    assert len(contexts.splitlines()) == len(ids) == 3


def test_a_faulty_question_file_fails_naming_it_before_histories_are_written(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "questions_32k.csv"
    broken.write_text("question_id,user_question_or_message\nq1,hello\n", encoding="utf-8")
    with pytest.raises(PersonaMemDataError, match="missing columns") as info:
        write_split(tmp_path / "data", "32k", broken, count=10, seed=0)
    assert str(broken) in str(info.value)
    assert list((tmp_path / "data").iterdir()) == []


def test_without_a_question_file_a_synthetic_split_of_count_questions(tmp_path: Path) -> None:
    written = write_split(tmp_path, "128k", None, count=20, seed=1)
    assert written == tmp_path / "questions_128k.csv"
    assert len(read_questions(written, "128k")) == 20
    assert (tmp_path / "shared_contexts_128k.jsonl").is_file()
