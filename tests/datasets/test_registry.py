"""The installed package registers the tasks that tasks.yaml lists; the task signature,
tasks.yaml and the README's tables are held equal to the parameter tables."""

from __future__ import annotations

import csv
import importlib.util
import inspect
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

import pytest
import yaml
from inspect_ai.util import registry_info
from support.helpers import REAL_QUESTIONS, ROOT, require
from support.tasks import assert_declares

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.parameters import check_fields
from inspect_personamem.run import tasks
from inspect_personamem.run.build import TASK_VERSION
from inspect_personamem.run.tasks import TASKS

LISTING = yaml.safe_load((ROOT / "tasks.yaml").read_text(encoding="utf-8"))


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_docs", ROOT / "scripts/generate_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def registered_tasks() -> dict[str, Any]:
    (entry,) = [e for e in entry_points(group="inspect_ai") if e.name == "inspect_personamem"]
    module = entry.load()
    tasks = {}
    for value in vars(module).values():
        if callable(value) and hasattr(value, "__registry_info__"):
            info = registry_info(value)
            if info.type == "task":
                tasks[info.name] = value
    return tasks


def test_listing_names_exactly_the_registered_tasks() -> None:
    assert sorted(registered_tasks()) == sorted(t["name"] for t in LISTING["tasks"])


def test_the_tasks_are_every_versions_and_no_other() -> None:
    names = [name for version in VERSIONS.values() for name in version.task_names]
    assert list(TASKS) == names
    assert {f"inspect_personamem/{name}": TASKS[name] for name in names} == registered_tasks()


def test_each_task_is_written_in_run_tasks_under_its_name() -> None:
    """A task can be found: `def personamem_32k(` in run/tasks.py, which `inspect list
    tasks` reads from the source, and not a function made at import time."""
    source = inspect.getsource(tasks)
    for name, function in TASKS.items():
        written = inspect.unwrap(function)
        assert (written.__module__, written.__name__) == (tasks.__name__, name)
        assert f"\n@task\ndef {name}(\n" in source


@pytest.mark.parametrize("version", list(VERSIONS.values()), ids=list(VERSIONS))
def test_each_versions_tasks_declare_its_parameters(version: DatasetVersion[Any]) -> None:
    """Names, order, types, defaults and the axis values' groups: a version's task takes
    every parameter its tables declare; a task per value of `fixed` the same but that
    one."""
    assert_declares(TASKS[version.task], version)
    for value in version.fixed_values:
        assert_declares(TASKS[f"{version.task}_{value}"], version, value)


def test_tasks_yaml_and_the_readme_are_what_the_tables_generate() -> None:
    docs = generator()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docs.readme_text(readme) == readme, "run python scripts/generate_docs.py"
    listing = (ROOT / "tasks.yaml").read_text(encoding="utf-8")
    assert docs.tasks_yaml_text(listing) == listing, "run python scripts/generate_docs.py"
    assert LISTING["parameters"] == docs.parameter_entries()
    for key, path in docs.VERSION_DOCS.items():
        assert LISTING[f"{key}_parameters"] == docs.parameter_entries(VERSIONS[key], own=True)
        page = path.read_text(encoding="utf-8")
        assert docs.version_doc_text(key, page) == page, "run python scripts/generate_docs.py"
    data = docs.DATA_DOC.read_text(encoding="utf-8")
    assert docs.data_doc_text(data) == data, "run python scripts/generate_docs.py"


def test_the_task_functions_are_what_the_tables_generate() -> None:
    """run/tasks.py, every task's signature spelt out, is written from the tables."""
    written = generator().TASKS_MODULE.read_text(encoding="utf-8")
    assert generator().tasks_module_text() == written, "run python scripts/generate_docs.py"


def test_listing_carries_the_task_version() -> None:
    assert LISTING["version"] == TASK_VERSION


def test_listing_sample_count_of_32k_matches_the_real_file() -> None:
    with require(REAL_QUESTIONS).open(newline="", encoding="utf-8") as file:
        rows = sum(1 for _ in csv.DictReader(file))
    (entry,) = [t for t in LISTING["tasks"] if t["name"].endswith("personamem_32k")]
    assert entry["samples"] == rows


def test_dataset_revision_is_the_package_default() -> None:
    from inspect_personamem.datasets.v1.spec import PERSONAMEM

    assert LISTING["dataset"]["revision"] == PERSONAMEM.revision
    assert LISTING["dataset"]["repo_id"] == PERSONAMEM.repo_id
    [asset] = LISTING["external_assets"]
    assert (asset["source"], asset["revision"]) == (PERSONAMEM.repo_id, PERSONAMEM.revision)


@pytest.mark.parametrize("version", VERSIONS.values(), ids=lambda v: v.key)
def test_a_version_s_settings_are_named_as_its_selectors_and_own_parameters(
    version: DatasetVersion[Any],
) -> None:
    """The typed object its task reads (`DatasetVersion.settings`, `TaskSettings.version`)
    holds each of its selectors and own parameters, under its name."""
    check_fields(version.settings, (*version.selectors, *version.own), version.key)
