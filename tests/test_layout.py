"""The folders follow the data flow: no module imports from a room after its own, and
importing the report loads no solver."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "inspect_personamem"

ROOMS = ["types", "errors", "data", "settings", "http_client", "history", "answer", "scoring"]
"""Rooms in the order data flows through them: each may import only rooms before it
(and itself). The tools on top (report, cost, offline, tasks, cli) may import these;
the report also reads the cost tool's price table (its cost view), never the reverse."""
TOOLS_MAY_NOT = {
    "report": {"history", "answer", "offline", "tasks"},
    "cost": {"history", "answer", "offline", "report", "tasks"},
}


def room(module: str) -> str:
    return module.split(".")[0]


def imported_rooms(path: Path) -> set[str]:
    """The package's top-level rooms a module imports (relative imports resolved)."""
    here = path.relative_to(PACKAGE).with_suffix("").parts
    package = here if path.name == "__init__.py" else here[:-1]
    package = package[:-1] if path.name == "__init__.py" else package
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
    own = path.relative_to(PACKAGE).with_suffix("").parts[0]
    imported = imported_rooms(path) - {own, "__init__"}
    if own in ROOMS:
        later = set(ROOMS[ROOMS.index(own) + 1 :]) | set(TOOLS_MAY_NOT) | {"offline", "tasks"}
        assert not imported & later, f"{own} imports {sorted(imported & later)}"
    elif own in TOOLS_MAY_NOT:
        assert not imported & TOOLS_MAY_NOT[own], f"{own} imports {imported & TOOLS_MAY_NOT[own]}"


def test_importing_a_tool_loads_no_solver() -> None:
    """The report loads no history source, answer, task or offline tool; the command
    (which loads the report too) no history source, answer or task."""
    code = (
        "import sys\n"
        "def loaded(): return sorted(m for m in sys.modules if m.startswith('inspect_'))\n"
        "import inspect_personamem.report\n"
        "print(loaded())\n"
        "import inspect_personamem.cli\n"
        "print(loaded())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report, cli = done.stdout.splitlines()
    for name in ("history", "answer", "tasks", "offline"):
        assert f"'inspect_personamem.{name}" not in report, report
    for name in ("history", "answer", "tasks"):
        assert f"'inspect_personamem.{name}" not in cli, cli
