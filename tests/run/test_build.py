"""`run/build.py`: a task function's arguments completed (a task that fixes a selector
sets it and refuses it given), the `Task` built from a version and the axis tables
(its version, metadata, question order and what the answer adds to each sample), and
the warning that names a relative path."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.build import (
    TASK_VERSION,
    UNKNOWN,
    _names_a_path,
    _warn_of_relative_paths,
    build_task,
    task_arguments,
)
from inspect_personamem.run.tasks import TASKS

V1 = VERSIONS["v1"]


def test_a_fixed_task_refuses_its_fixed_parameter(small_split: Path) -> None:
    with pytest.raises(PersonaMemArgumentError, match="personamem_32k runs split=32k: leave out"):
        TASKS["personamem_32k"](data_dir=str(small_split), split="128k")


def test_a_task_s_arguments_are_its_named_ones_its_unknown_ones_and_the_defaults() -> None:
    arguments = task_arguments(V1, {"split": "128k", "history": "none", UNKNOWN: {"top_k": 2}})
    assert (arguments["split"], arguments["history"], arguments["top_k"]) == ("128k", "none", 2)
    assert arguments["answer"] == "choice" and UNKNOWN not in arguments


def test_a_task_that_fixes_a_selector_sets_it_and_refuses_it_given() -> None:
    """`personamem_128k` runs split=128k whatever its signature's default says."""
    assert task_arguments(V1, {"history": "full", UNKNOWN: {}}, "128k")["split"] == "128k"
    with pytest.raises(PersonaMemArgumentError) as error:
        task_arguments(V1, {UNKNOWN: {"split": "1M"}}, "128k")
    assert str(error.value) == (
        "personamem_128k runs split=128k: leave out split='1M', or run "
        "inspect_personamem/personamem -T split=..."
    )


def test_a_task_carries_its_version_axes_and_dataset(small_split: Path) -> None:
    arguments = task_arguments(V1, {"data_dir": str(small_split), UNKNOWN: {}}, "32k")
    task = build_task(V1, arguments)
    assert task.version == TASK_VERSION
    assert task.metadata is not None
    assert {key: task.metadata[key] for key in ("history", "answer", "dataset", "revision")} == {
        "history": "full", "answer": "choice", "dataset": "PersonaMem", "revision": V1.revision,
    }  # fmt: skip
    assert len(task.dataset) == 24


def test_the_questions_are_in_the_order_asked_for(small_split: Path) -> None:
    """`order=file` keeps the file's order; the choice answer's own, interleaved, takes
    the contexts in turn, where the file has each context's questions together."""

    def contexts(order: str | None) -> list[str]:
        given = {"data_dir": str(small_split), "order": order, "interleave_block": 0}
        task = build_task(V1, task_arguments(V1, {**given, UNKNOWN: {}}, "32k"))
        return [(s.metadata or {})["shared_context_id"] for s in task.dataset]

    in_file = contexts("file")
    interleaved = contexts(None)
    assert sorted(in_file) == sorted(interleaved)
    assert in_file != interleaved
    runs = sum(1 for a, b in zip(in_file, in_file[1:], strict=False) if a != b)
    assert runs == len(set(in_file)) - 1  # each context's questions together in the file
    assert len(set(interleaved[:3])) == 3  # one question of each context, then again


def test_what_the_answer_adds_to_each_sample_s_metadata_is_there(small_split: Path) -> None:
    """answer=open's grading: each sample its seed, `grader_calibration` of them
    calibrated."""
    given = {"data_dir": str(small_split), "answer": "open", "grader": "self"}
    arguments = task_arguments(V1, {**given, UNKNOWN: {"grader_calibration": 3}}, "32k")
    task = build_task(V1, arguments)
    gradings = [(s.metadata or {})["grading"] for s in task.dataset]
    assert len(gradings) == 24 and all(g["seed"] == 0 for g in gradings)
    assert sum(g["calibrated"] for g in gradings) == 3
    assert all("shared_context_id" in (s.metadata or {}) for s in task.dataset)  # kept


@pytest.mark.parametrize(
    ("name", "value", "names_a_path"),
    [
        ("data_dir", "data", True),
        ("memory_config", "m.yaml", True),
        ("embedding_cache", "cache", True),
        ("embedding_cache", "none", False),
        ("embedder", "BAAI/bge-m3", False),  # a hub id, no folder of that name
        ("history", "full", False),
    ],
)
def test_which_arguments_name_a_file_or_folder(name: str, value: str, names_a_path: bool) -> None:
    assert _names_a_path(name, value) is names_a_path


def test_an_embedder_names_a_path_only_where_the_folder_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert not _names_a_path("embedder", "model")
    (tmp_path / "model").mkdir()
    assert _names_a_path("embedder", "model")


def test_relative_paths_are_named_together_in_one_warning_and_absolute_ones_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    arguments: dict[str, Any] = {
        "data_dir": "data", "memory_config": "m.yaml", "embedding_cache": str(tmp_path),
        "history": "full", "top_k": 5,
    }  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="inspect_personamem.run.build"):
        _warn_of_relative_paths(arguments)
        _warn_of_relative_paths({"data_dir": str(tmp_path), "embedding_cache": "none"})
    (warned,) = [r.getMessage() for r in caplog.records]
    assert warned.startswith(f"data_dir=data, memory_config=m.yaml: relative to {tmp_path}. ")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"history": "rag", "retriever": "bm25", "embedding_cache": "cache"}, "embedding_cache"),
        ({"history": "rag", "retriever": "bm25", "embedding_cache": "none"}, None),
        (
            {
                "history": "memory",
                "memory": "support.memories:SpyMemory",
                "memory_config": "m.yaml",
            },
            "memory_config",
        ),
        ({"history": "rag", "retriever": "dense", "embedder": "openai/x"}, None),
    ],
)
def test_relative_path_arguments_are_named_and_names_are_not(
    small_split: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    arguments: dict[str, str],
    named: str | None,
) -> None:
    """`embedding_cache=none` and a model name name no file; a relative file does."""
    monkeypatch.chdir(small_split.parent)
    monkeypatch.setenv("OPENAI_API_KEY", "not-used")
    (small_split.parent / "m.yaml").write_text("a: 1\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        TASKS["personamem_32k"](data_dir=str(small_split), **arguments)
    warned = " ".join(r.getMessage() for r in caplog.records if "relative to" in r.getMessage())
    assert (f"{named}={arguments[named]}" in warned) if named else not warned
