"""PersonaMem-v2's release (`datasets/v2/spec.py`): its repository, revision, licence
and question files, a subset named or refused, the subset a question file's name
tells, and the files a folder must hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_personamem.data.release import ReleasedFile
from inspect_personamem.datasets.v2.spec import PERSONAMEM_V2, V2Source, check_subset

REPO, REVISION = PERSONAMEM_V2.repo_id, PERSONAMEM_V2.revision


def test_the_spec_is_the_release() -> None:
    assert (REPO, REVISION) == (
        "bowen-upenn/PersonaMem-v2",
        "87abb2e774588a8bc97d939640ac2843c84aa1f1",
    )
    assert PERSONAMEM_V2.license == "CC-BY-4.0"
    files = [V2Source(subset).questions_file for subset in ("benchmark", "train", "val")]
    assert files == [
        "benchmark/text/benchmark.csv",
        "benchmark/text/train.csv",
        "benchmark/text/val.csv",
    ]
    assert {s: f.rows for s, f in PERSONAMEM_V2.released.items()} == {
        "benchmark": 5000,
        "train": 18_549,
        "val": 2061,
    }
    assert PERSONAMEM_V2.released["benchmark"] == ReleasedFile(
        5000, 42_426_457, "95f2a8a324aab7baf2af937feae12731369e2abf7cad5ab3e170594cb25a3e52"
    )
    assert V2Source().subset == "benchmark"


def test_a_subset_is_one_of_three() -> None:
    assert [check_subset(s) for s in ("benchmark", "train", "val")] == ["benchmark", "train", "val"]
    with pytest.raises(ValueError) as info:
        check_subset("Benchmark")
    assert str(info.value) == (
        "Unknown PersonaMem-v2 subset 'Benchmark'; choose one of benchmark, train, val."
    )


@pytest.mark.parametrize(
    ("path", "subset"),
    [
        ("benchmark/text/benchmark.csv", "benchmark"),
        ("/elsewhere/val.csv", "val"),
        ("train.csv", "train"),
        ("benchmark/text/test.csv", None),
        ("benchmark.jsonl", None),
    ],
)
def test_the_subset_of_a_question_file_is_told_by_its_name(path: str, subset: str | None) -> None:
    assert PERSONAMEM_V2.subset_of_questions(Path(path)) == subset


def test_a_folder_must_hold_the_question_file_and_both_lengths_histories() -> None:
    assert V2Source("val").wanted == (
        "benchmark/text/val.csv and the history files under data/chat_history_32k/ and "
        "data/chat_history_128k/"
    )
    assert V2Source().data_dir_env == "PERSONAMEM_V2_DATA_DIR"
