"""A PersonaMem split's files (`datasets/v1/files.py`): the context file located only
where the run reads a history, and the run's `data_release` and `data_checked` from
both files (or the question file alone) against what is known of the released ones."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.helpers import EXCERPT

from inspect_personamem.datasets.v1.files import SplitFiles, locate_split_files, release_files
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.datasets.v1.spec import DataSource

CONTEXTS = '{"a": []}\n{"b": []}\n{"c": []}\n'


def test_a_run_without_history_locates_the_question_file_alone(tmp_path: Path) -> None:
    shutil.copyfile(EXCERPT, tmp_path / "questions_32k.csv")
    source = DataSource("32k", tmp_path, with_contexts=False)
    files = locate_split_files(source)
    assert files == SplitFiles(
        (tmp_path / "questions_32k.csv").resolve(), None, f"local folder {tmp_path}"
    )
    records = read_questions(files.questions, "32k")
    release, checked = release_files(source, files, records, 0)
    assert release == (
        "not the released file: 8 rows where the released questions_32k.csv has 589 "
        "(581 missing: a cut file?); 581 released rows missing, the first question "
        "5370f186-0028-41f4-b436-c48575899fca"
    )
    assert checked == "questions_32k.csv: rows, bytes, sha256; shared_contexts_32k.jsonl: not read"


def test_both_files_are_checked_each_against_what_is_known_of_it(tmp_path: Path) -> None:
    """128k: the question file's rows and bytes are known, the context file's count
    alone; each difference is named, the question file's first."""
    shutil.copyfile(EXCERPT, tmp_path / "questions_128k.csv")
    (tmp_path / "shared_contexts_128k.jsonl").write_text(CONTEXTS, encoding="utf-8")
    source = DataSource("128k", tmp_path)
    files = locate_split_files(source)
    assert files.contexts == (tmp_path / "shared_contexts_128k.jsonl").resolve()
    records = read_questions(EXCERPT, "32k")  # its labels are 32k's; only its rows count
    release, checked = release_files(source, files, records, 3)
    assert release == (
        "not the released file: 8 rows where the released questions_128k.csv has 2727 "
        "(2719 missing: a cut file?); 3 contexts where the released "
        "shared_contexts_128k.jsonl has 110 (107 missing: a cut file?)"
    )
    assert checked == (
        "questions_128k.csv: rows, bytes; "
        "shared_contexts_128k.jsonl: rows (its bytes and digest unknown)"
    )
