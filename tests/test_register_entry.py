"""scripts/register_entry.py: the entry for inspect_evals' register, valid against the
schema written from the register's documented fields, listing every registered task."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest
import yaml
from inspect_ai.util import registry_info
from support.helpers import ROOT

from inspect_personamem import _registry

SCRIPT = ROOT / "scripts" / "register_entry.py"
SCHEMA = json.loads((ROOT / "scripts" / "register_entry.schema.json").read_text("utf-8"))
URL = "https://github.com/example/inspect_personamem"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("register_entry", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def written(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=tmp_path
    )


@pytest.mark.slow  # the script in a process of its own
def test_the_written_entry_is_valid_and_lists_every_registered_task(tmp_path: Path) -> None:
    out = tmp_path / "eval.yaml"
    done = written(
        tmp_path, "--repository-url", URL, "--commit", COMMIT, "--maintainer", "someone",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    entry = yaml.safe_load(out.read_text(encoding="utf-8"))
    jsonschema.validate(entry, SCHEMA)
    assert entry["source"] == {
        "repository_url": URL,
        "repository_commit": COMMIT,
        "maintainers": ["someone"],
    }
    tasks = {task["name"]: task["task_path"] for task in entry["tasks"]}
    objects = [getattr(_registry, name) for name in _registry.__all__]
    registered = {registry_info(o).name for o in objects if registry_info(o).type == "task"}
    assert {f"inspect_personamem/{name}" for name in tasks} == registered
    assert all(path == f"inspect_personamem/{name}" for name, path in tasks.items())


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("commit", "abc123", "source.repository_commit: 'abc123' does not match"),
        ("commit", COMMIT.upper(), "source.repository_commit"),
        ("repository_url", "github.com/x/y", "source.repository_url"),
    ],
)
def test_a_field_the_register_refuses_is_a_one_line_error_naming_it(
    field: str, value: str, error: str
) -> None:
    given = {"repository_url": URL, "commit": COMMIT} | {field: value}
    with pytest.raises(SystemExit) as refused:
        script().entry(given["repository_url"], given["commit"], ["someone"])
    message = str(refused.value)
    assert message.startswith("register entry: ") and error in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "broken",
    [
        {"tasks": []},
        {"tasks": [{"name": "personamem_32k"}]},
        {"source": {"repository_url": URL, "repository_commit": COMMIT, "maintainers": []}},
        {"title": ""},
    ],
)
def test_the_schema_refuses_an_entry_missing_what_the_register_needs(
    broken: dict[str, object],
) -> None:
    entry = script().entry(URL, COMMIT, ["someone"]) | broken
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(entry, SCHEMA)
