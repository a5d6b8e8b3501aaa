"""The folders follow the data flow: no module imports from a room after its own, and
importing a tool loads no heavy library nor a tool above it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "inspect_personamem"

ROOMS = [
    "types", "errors", "parameters", "data", "http_client", "scoring", "history", "answer",
    "datasets",
]  # fmt: skip
"""Rooms in the order data flows through them: each may import only rooms before it
(and itself). A dataset version (`datasets`) sits on the rooms it builds on: its data,
scorers and parameters; what a tool reads of it (its report layout and published
numbers, its estimate's requests, its try-it data, its offline answers) it declares as
data (`datasets/declared.py`), importing no tool. The tools on top (run, report, cost,
offline, cli) may import the rooms; the report also reads the cost tool's price table
(its cost view), never the reverse."""
TOOLS_MAY_NOT = {
    "run": {"report", "cost", "offline"},
    "report": {"offline"},
    "cost": {"offline", "report", "run"},
}


def room(module: str) -> str:
    return module.split(".")[0]


def _type_only(tree: ast.Module) -> set[ast.AST]:
    """The imports under `if TYPE_CHECKING:`: names for annotations, never loaded."""
    return {
        child
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for child in ast.walk(node)
    }


def imported_rooms(path: Path) -> set[str]:
    """The package's top-level rooms a module imports at run time (relative imports
    resolved; those for annotations only, under `if TYPE_CHECKING:`, left out)."""
    here = path.relative_to(PACKAGE).with_suffix("").parts
    package = here if path.name == "__init__.py" else here[:-1]
    package = package[:-1] if path.name == "__init__.py" else package
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = _type_only(tree)
    for node in ast.walk(tree):
        if node in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(package[: len(package) - (node.level - 1)])
            target = [*base, *(node.module.split(".") if node.module else [])]
            if target:
                found.add(target[0])
            else:  # `from . import x` at the top of the package
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names = (
                [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            )
            for name in names:
                if name and name.startswith("inspect_personamem."):
                    found.add(name.split(".")[1])
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_imports_upward(path: Path) -> None:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    own = parts[0]
    imported = imported_rooms(path) - {own, "__init__"}
    if own in ROOMS:
        later = set(ROOMS[ROOMS.index(own) + 1 :]) | set(TOOLS_MAY_NOT) | {"offline"}
        assert not imported & later, f"{own} imports {sorted(imported & later)}"
    elif own in TOOLS_MAY_NOT:
        assert not imported & TOOLS_MAY_NOT[own], f"{own} imports {imported & TOOLS_MAY_NOT[own]}"


HEAVY = ("torch", "transformers", "sentence_transformers", "mem0", "matplotlib")
"""Libraries of the extras: loaded by what uses them, never by an import alone."""


@pytest.mark.slow  # a fresh interpreter
def test_importing_a_tool_loads_no_heavy_library_and_no_tool_above_it() -> None:
    """The report loads no task builder and no offline tool; the command (which loads
    the report too) no task builder; neither loads an extra's library."""
    code = (
        "import sys\n"
        "def loaded(): return sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{('inspect_personamem', *HEAVY)!r})\n"
        "import inspect_personamem.report\n"
        "print(loaded())\n"
        "import inspect_personamem.cli\n"
        "print(loaded())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report, cli = done.stdout.splitlines()
    for name in ("run.build", "run.tasks", "offline"):
        assert f"'inspect_personamem.{name}" not in report, report
    for name in ("run.build", "run.tasks"):
        assert f"'inspect_personamem.{name}'" not in cli, cli
    for library in HEAVY:
        assert f"'{library}'" not in cli, cli
