"""The installed package registers the tasks that tasks.yaml lists; the task signature,
tasks.yaml and the README's tables are held equal to the parameter tables."""

from __future__ import annotations

import csv
import importlib.util
import inspect
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, get_args, get_origin, get_type_hints

import yaml
from inspect_ai.util import registry_info
from support.helpers import REAL_QUESTIONS, require

from inspect_personamem.settings import V2_COMMON, parameters, scoring_defaults
from inspect_personamem.tasks import TASK_VERSION, personamem, personamem_v2

ROOT = Path(__file__).parents[1]
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


def named(function: Any) -> dict[str, inspect.Parameter]:
    """A task's named parameters; each also takes `**unknown`, only to reject it."""
    signature = dict(inspect.signature(function).parameters)
    assert signature.pop("unknown").kind is inspect.Parameter.VAR_KEYWORD
    return signature


def test_listing_names_exactly_the_registered_tasks() -> None:
    assert sorted(registered_tasks()) == sorted(t["name"] for t in LISTING["tasks"])


def test_the_signature_is_the_tables() -> None:
    """Names, order, defaults and choices: the signature lists what settings.py declares."""
    declared = parameters()
    signature = named(personamem)
    assert list(signature) == list(declared)
    hints = get_type_hints(personamem)
    for name, parameter in declared.items():
        assert signature[name].default == parameter.default, name
        hint = hints[name]
        members = (hint,) if get_origin(hint) is Literal else get_args(hint) or (hint,)
        literal = [v for m in members if get_origin(m) is Literal for v in get_args(m)]
        assert tuple(literal) == parameter.allowed, name
    for name, function in registered_tasks().items():
        if "personamem_v2" in name:
            continue
        expected = {k: p.default for k, p in named(personamem).items()}
        if name != "inspect_personamem/personamem":
            expected.pop("split")
        assert {k: p.default for k, p in named(function).items()} == expected, name


def test_the_v2_signature_is_its_tables() -> None:
    """PersonaMem-v2's task takes its own common parameters and the same axes."""
    declared = parameters(V2_COMMON)
    signature = named(personamem_v2)
    assert list(signature) == list(declared)
    for name, parameter in declared.items():
        assert signature[name].default == parameter.default, name
    for name, function in registered_tasks().items():
        if name.startswith("inspect_personamem/personamem_v2_"):
            expected = {k: p.default for k, p in signature.items() if k != "length"}
            assert {k: p.default for k, p in named(function).items()} == expected, name


def test_every_parameter_says_whether_it_changes_what_is_scored() -> None:
    assert set(scoring_defaults()) == {n for n, p in parameters().items() if p.scoring}
    assert {"history", "answer", "top_k", "normalization"} <= set(scoring_defaults())
    assert not {"data_dir", "order", "embedding_cache", "split"} & set(scoring_defaults())


def test_tasks_yaml_and_the_readme_are_what_the_tables_generate() -> None:
    docs = generator()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docs.readme_text(readme) == readme, "run python scripts/generate_docs.py"
    listing = (ROOT / "tasks.yaml").read_text(encoding="utf-8")
    assert docs.tasks_yaml_text(listing) == listing, "run python scripts/generate_docs.py"
    assert LISTING["parameters"] == docs.parameter_entries()
    assert LISTING["v2_parameters"] == docs.parameter_entries(V2_COMMON)
    v2_doc = (ROOT / "docs" / "personamem-v2.md").read_text(encoding="utf-8")
    assert docs.v2_doc_text(v2_doc) == v2_doc, "run python scripts/generate_docs.py"


def test_listing_carries_the_task_version() -> None:
    assert LISTING["version"] == TASK_VERSION


def test_listing_sample_count_of_32k_matches_the_real_file() -> None:
    with require(REAL_QUESTIONS).open(newline="", encoding="utf-8") as file:
        rows = sum(1 for _ in csv.DictReader(file))
    (entry,) = [t for t in LISTING["tasks"] if t["name"].endswith("personamem_32k")]
    assert entry["samples"] == rows


def test_dataset_revision_is_the_package_default() -> None:
    from inspect_personamem.data.spec import PERSONAMEM

    assert LISTING["dataset"]["revision"] == PERSONAMEM.revision
    assert LISTING["dataset"]["repo_id"] == PERSONAMEM.repo_id
    [asset] = LISTING["external_assets"]
    assert (asset["source"], asset["revision"]) == (PERSONAMEM.repo_id, PERSONAMEM.revision)
