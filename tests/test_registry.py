"""The installed package registers the tasks that tasks.yaml lists, with its parameters."""

from __future__ import annotations

import csv
import inspect
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import yaml
from helpers import REAL_QUESTIONS, require
from inspect_ai.util import registry_info

from inspect_personamem.methods import METHODS
from inspect_personamem.settings import NOT_SCORING, SCORING_DEFAULTS
from inspect_personamem.tasks import TASK_VERSION, personamem

LISTING = yaml.safe_load((Path(__file__).parents[1] / "tasks.yaml").read_text(encoding="utf-8"))


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
    parameters = dict(inspect.signature(function).parameters)
    assert parameters.pop("unknown").kind is inspect.Parameter.VAR_KEYWORD
    return parameters


def test_listing_names_exactly_the_registered_tasks() -> None:
    assert sorted(registered_tasks()) == sorted(t["name"] for t in LISTING["tasks"])


def test_listing_parameters_and_defaults_match_the_signatures() -> None:
    listed = {p["name"]: p["default"] for p in LISTING["parameters"]}
    for name, function in registered_tasks().items():
        parameters = named(function)
        expected = dict(listed)
        if name != "inspect_personamem/personamem":
            expected.pop("split")
        assert {k: p.default for k, p in parameters.items()} == expected, name


def test_listing_choices_match_the_parameter_types() -> None:
    from typing import Literal, get_args, get_origin, get_type_hints

    hints = get_type_hints(personamem)
    for parameter in LISTING["parameters"]:
        hint = hints[parameter["name"]]
        members = (hint,) if get_origin(hint) is Literal else get_args(hint) or (hint,)
        choices = [v for m in members if get_origin(m) is Literal for v in get_args(m)]
        if choices and type(None) in members:
            choices.insert(0, None)
        if parameter["name"] == "method":  # checked against the method table
            choices = list(METHODS)
        assert parameter.get("choices", []) == choices, parameter["name"]


def test_every_parameter_is_a_scoring_setting_or_listed_as_not_one() -> None:
    """A new task parameter must say whether it changes what is scored (the report
    tells runs apart by the scoring settings)."""
    parameters = named(personamem)
    assert set(SCORING_DEFAULTS).isdisjoint(NOT_SCORING)
    assert set(parameters) == set(SCORING_DEFAULTS) | NOT_SCORING
    for name, default in SCORING_DEFAULTS.items():
        assert parameters[name].default == default, name


def test_listing_carries_the_task_version() -> None:
    assert LISTING["version"] == TASK_VERSION


def test_listing_sample_count_of_32k_matches_the_real_file() -> None:
    with require(REAL_QUESTIONS).open(newline="", encoding="utf-8") as file:
        rows = sum(1 for _ in csv.DictReader(file))
    (entry,) = [t for t in LISTING["tasks"] if t["name"].endswith("_32k")]
    assert entry["samples"] == rows


def test_dataset_revision_is_the_package_default() -> None:
    from inspect_personamem.data.spec import PERSONAMEM

    assert LISTING["dataset"]["revision"] == PERSONAMEM.revision
    assert LISTING["dataset"]["repo_id"] == PERSONAMEM.repo_id
    [asset] = LISTING["external_assets"]
    assert (asset["source"], asset["revision"]) == (PERSONAMEM.repo_id, PERSONAMEM.revision)
