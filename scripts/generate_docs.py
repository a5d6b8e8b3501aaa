"""Write the parts of tasks.yaml, README.md, docs/personamem-v2.md and docs/data.md that
come from the code's tables.

    python scripts/generate_docs.py           rewrite them
    python scripts/generate_docs.py --check   say which are stale, exit 1 if any

The first dataset version's parameters (`run/arguments.py`: its task's, then `history`
and `answer` with each value's own) go to tasks.yaml's `parameters:` list and to the
README's table between `<!-- parameters:start -->` and `<!-- parameters:end -->`; every
version's tasks, with the released question counts, to tasks.yaml's `version:` line and
the README's table between `<!-- tasks:start -->` and `<!-- tasks:end -->`; each other
version's task parameters to tasks.yaml's `<key>_parameters:` and, where it has one, its
page under docs/ (`VERSION_DOCS`); every version's known defects (`Release.errata`) to
docs/data.md's table between `<!-- errata:start -->` and `<!-- errata:end -->`.
tests/datasets/test_registry.py holds the files equal to what this writes.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.parameters import Parameter
from inspect_personamem.run.arguments import owners, parameters, task_parameters
from inspect_personamem.run.build import TASK_VERSION

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TASKS_YAML = ROOT / "tasks.yaml"
DATA_DOC = ROOT / "docs" / "data.md"
VERSION_DOCS: dict[str, Path] = {"v2": ROOT / "docs" / "personamem-v2.md"}
"""Versions (but the first) with a page of their own that lists their parameters."""
FIRST = next(iter(VERSIONS.values()))
"""The default version, whose parameters the README lists in full."""


def applies_to(parameter: Parameter) -> str:
    """`all`, or the axis values that read it (`history=rag, history=memory`)."""
    return ", ".join(owners(parameter.name)) or "all"


def _listed(version: DatasetVersion[Any], own: bool) -> list[Parameter]:
    """A version's parameters: all of them, or (`own`) its task's without the axis
    values' own (the axes are shared)."""
    return list(task_parameters(version) if own else parameters(version).values())


def parameter_entries(
    version: DatasetVersion[Any] = FIRST, own: bool = False
) -> list[dict[str, Any]]:
    """tasks.yaml's `parameters:` list (the first version's, all of them), or a
    `<key>_parameters:` list (`own`)."""
    entries = []
    for parameter in _listed(version, own):
        entry: dict[str, Any] = {"name": parameter.name, "default": parameter.default}
        if parameter.allowed:
            entry["choices"] = list(parameter.allowed)
        entry["applies_to"] = applies_to(parameter)
        entry["scoring"] = parameter.scoring
        entry["description"] = parameter.help
        entries.append(entry)
    return entries


def _shown(value: Any) -> str:
    return (
        "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )


def parameters_markdown(version: DatasetVersion[Any] = FIRST, own: bool = False) -> str:
    """The README's parameter table, or (`own`) a version's page's."""
    lines = ["| parameter | default | applies to | meaning |", "|---|---|---|---|"]
    for parameter in _listed(version, own):
        choices = (
            f" One of: {', '.join(map(_shown, parameter.allowed))}." if parameter.allowed else ""
        )
        help_text = parameter.help.replace("|", "\\|")
        lines.append(
            f"| `{parameter.name}` | `{_shown(parameter.default)}` | {applies_to(parameter)} | "
            f"{help_text}{choices} |"
        )
    return "\n".join(lines)


def tasks_markdown() -> str:
    """The README's task table: each version's task per value of the selector it fixes,
    then its task that takes it."""
    lines = ["| task | selects | questions |", "|---|---|---|"]
    for version in VERSIONS.values():
        prefix = "" if version is FIRST else f"{version.name}, "
        for value in version.fixed_values:
            rows = version.released_rows({version.fixed: value})
            lines.append(
                f"| `inspect_personamem/{version.task}_{value}` | {prefix}{value} | {rows} |"
            )
        lines.append(
            f"| `inspect_personamem/{version.task}` | {prefix}`-T {version.fixed}=...` | "
            f"by {version.selectors[0].name} |"
        )
    return "\n".join(lines)


def errata_markdown() -> str:
    """docs/data.md's table of every version's known defects, in the registry's order."""
    lines = ["| dataset | concerns | defect | reported |", "|---|---|---|---|"]
    for version in VERSIONS.values():
        for erratum in version.release.errata:
            concerns = ", ".join(erratum.selections) or "all"
            defect = erratum.defect.replace("|", "\\|")
            lines.append(f"| {version.name} | {concerns} | {defect} | {erratum.reported} |")
    return "\n".join(lines)


def data_doc_text(text: str) -> str:
    """docs/data.md with the table of known defects."""
    return _with_tables(text, DATA_DOC, {"errata": errata_markdown()})


def _between(match: re.Match[str], table: str) -> str:
    return match.group(1) + table + match.group(2)


def _with_tables(text: str, where: Path, tables: dict[str, str]) -> str:
    for name, table in tables.items():
        pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(\n<!-- {name}:end -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"{where}: no <!-- {name}:start --> ... <!-- {name}:end --> markers")
        text = pattern.sub(functools.partial(_between, table=table), text)
    return text


def readme_text(text: str) -> str:
    tables = {"parameters": parameters_markdown(), "tasks": tasks_markdown()}
    return _with_tables(text, README, tables)


def version_doc_text(key: str, text: str) -> str:
    """A version's page with its parameter table (`<!-- <key>-parameters:start -->`)."""
    table = parameters_markdown(VERSIONS[key], own=True)
    return _with_tables(text, VERSION_DOCS[key], {f"{key}-parameters": table})


def tasks_yaml_text(text: str) -> str:
    note = "# Generated by scripts/generate_docs.py from the parameter tables: edit them there.\n"
    head, _, _ = text.partition("\nparameters:\n")
    head = re.sub(r"(?m)^version: \S+", f"version: {TASK_VERSION}", head)
    head = head.removesuffix(note.rstrip("\n")).rstrip("\n")
    listed = yaml.safe_dump(
        {
            "parameters": parameter_entries(),
            **{
                f"{key}_parameters": parameter_entries(version, own=True)
                for key, version in VERSIONS.items()
                if version is not FIRST
            },
        },
        sort_keys=False,
        width=1000,
        allow_unicode=True,
    )
    return f"{head}\n{note}{listed}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which files are stale")
    args = parser.parse_args()
    stale = []
    makers = [(README, readme_text), (TASKS_YAML, tasks_yaml_text), (DATA_DOC, data_doc_text)]
    makers += [
        (path, functools.partial(version_doc_text, key)) for key, path in VERSION_DOCS.items()
    ]
    for path, make in makers:
        text = path.read_text(encoding="utf-8")
        new = make(text)
        if new != text:
            stale.append(path.name)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(f"stale: {', '.join(stale)} (run python scripts/generate_docs.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
