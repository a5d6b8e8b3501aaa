"""Write the parts of tasks.yaml, README.md, docs/personamem-v2.md and docs/data.md that
come from the code's tables, and the task functions (src/inspect_personamem/run/tasks.py).

    python scripts/generate_docs.py           rewrite them
    python scripts/generate_docs.py --check   say which are stale, exit 1 if any

The first dataset version's parameters (`run/arguments.py`: its task's, then `history`
and `answer` with each value's own) go to tasks.yaml's `parameters:` list and to the
README's table between `<!-- parameters:start -->` and `<!-- parameters:end -->`; every
version's tasks, with the released question counts, to tasks.yaml's `version:` line and
the README's table between `<!-- tasks:start -->` and `<!-- tasks:end -->`; each other
version's task parameters to tasks.yaml's `<key>_parameters:` and, where it has one, its
page under docs/ (`VERSION_DOCS`); every version's known defects (`Release.errata`) to
docs/data.md's table between `<!-- errata:start -->` and `<!-- errata:end -->`; every
version's task functions, their signatures spelt out from its parameters (Inspect reads
a task's parameters, defaults and name from its source), to run/tasks.py whole.
tests/datasets/test_registry.py holds the files equal to what this writes.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import textwrap
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
TASKS_MODULE = ROOT / "src" / "inspect_personamem" / "run" / "tasks.py"
VERSION_DOCS: dict[str, Path] = {"v2": ROOT / "docs" / "personamem-v2.md"}
"""Versions (but the first) with a page of their own that lists their parameters."""
FIRST = next(iter(VERSIONS.values()))
"""The default version, whose parameters the README lists in full."""


def applies_to(parameter: Parameter, version: DatasetVersion[Any]) -> str:
    """`all`, or the axis values of `version` that read it (`history=rag, history=memory`)."""
    return ", ".join(owners(parameter.name, version)) or "all"


def _listed(version: DatasetVersion[Any], own: bool) -> list[Parameter]:
    """A version's parameters: all of them, or (`own`) its task's and those of the axis
    values only it offers (the shared ones are listed with the first version's)."""
    if not own:
        return list(parameters(version).values())
    task = list(task_parameters(version))
    listed = {p.name for p in task} | set(parameters(FIRST))
    return [*task, *(p for p in parameters(version).values() if p.name not in listed)]


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
        entry["applies_to"] = applies_to(parameter, version)
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
            f"| `{parameter.name}` | `{_shown(parameter.default)}` | "
            f"{applies_to(parameter, version)} | "
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


TASKS_HEAD = '''"""The tasks Inspect registers: each dataset version's task, taking its selectors
(`split`; `subset`, `length`; `family`), and one per value of the selector it fixes
(`personamem_32k`), each a few lines over `run.build`.

Generated by scripts/generate_docs.py from the parameter tables: edit them there. Each
signature lists the parameters the tables declare (`run.arguments.parameters`: the
version's task's, then those of the axis values it offers), typed, with their defaults,
since Inspect reads a task's parameters from its source; each is described in the
README's table and in tasks.yaml. The parameters that one axis value reads (or a few
share) come last, under a comment naming the values that read them. Any other name is
an error (`**unknown`, `run.build.UNKNOWN`), not Inspect's warning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from inspect_ai import Task, task

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.run.build import build_task, task_arguments

'''


def _literal(value: Any) -> str:
    """A default as the source spells it."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _task_function(version: DatasetVersion[Any], name: str, fixed: str | None) -> str:
    """One task function's source: its signature, docstring and body."""
    lines = ["@task", f"def {name}("]
    group = ""
    for parameter in parameters(version).values():
        if fixed is not None and parameter.name == version.fixed:
            continue
        readers = ", ".join(owners(parameter.name, version))
        if readers != group:
            group = readers
            lines.append(f"    # {readers}")
        kind = parameter.kind.__name__ + (" | None" if parameter.default is None else "")
        lines.append(f"    {parameter.name}: {kind} = {_literal(parameter.default)},")
    lines += ["    **unknown: Any,", ") -> Task:"]
    summary = textwrap.wrap(version.summary, 100 - 7 if len(version.summary) <= 90 else 88)
    if fixed is not None:
        summary += ["", f"Runs {version.fixed}={fixed} (`{version.fixed}` given is an error).", ""]
    summary[-1] += '"""'
    lines.append(f'    """{summary[0]}')
    lines += [f"    {line}".rstrip() if line != '"""' else '    """' for line in summary[1:]]
    called = "locals()" if fixed is None else f'locals(), "{fixed}"'
    constant = _constant(version)
    lines.append(f"    return build_task({constant}, task_arguments({constant}, {called}))")
    return "\n".join(lines) + "\n"


def _constant(version: DatasetVersion[Any]) -> str:
    return version.key.upper()


def tasks_module_text() -> str:
    """run/tasks.py: every version's task functions and `TASKS`."""
    constants = "".join(f'{_constant(v)}: Final = VERSIONS["{v.key}"]\n' for v in VERSIONS.values())
    functions = [
        _task_function(version, version.task if fixed is None else f"{version.task}_{fixed}", fixed)
        for version in VERSIONS.values()
        for fixed in (None, *version.fixed_values)
    ]
    names = [name for version in VERSIONS.values() for name in version.task_names]
    listed = "".join(f'    "{name}": {name},\n' for name in names)
    return (
        TASKS_HEAD
        + constants
        + "\n\n"
        + "\n\n".join(functions)
        + "\n\nTASKS: Final[dict[str, Callable[..., Task]]] = {\n"
        + listed
        + '}\n"""Every task by name, as Inspect registers it."""\n'
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which files are stale")
    args = parser.parse_args()
    stale = []
    makers = [(README, readme_text), (TASKS_YAML, tasks_yaml_text), (DATA_DOC, data_doc_text)]
    makers += [
        (path, functools.partial(version_doc_text, key)) for key, path in VERSION_DOCS.items()
    ]
    makers.append((TASKS_MODULE, lambda text: tasks_module_text()))
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
