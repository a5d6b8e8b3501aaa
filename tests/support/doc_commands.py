"""The shell commands the docs print, read from their Markdown source, so that the tests
that run an offline command run it as printed: the fenced blocks of every page, each
block's commands, which of them run offline, and a stand-in for `pip install` (the
tests' environment has the package and its extras installed already; a real install
would reach the network and replace the environment's own)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")))
"""Every page of the docs, by its path in the repository."""
MARK = "<!-- offline-recipe -->"
SHELLS = ("bash", "sh", "shell", "console", "")
"""The languages a fenced block of commands is written in."""
OFFLINE_MODELS = ("personamem/oracle", "personamem/floor")
TRY = "inspect-personamem try"
TRIED = {
    'pip install -e ".[report]" && inspect-personamem try': "tests/offline/test_try_it.py",
    "inspect-personamem try --questions questions_32k.csv --limit 60": (
        "tests/offline/test_try_it.py"
    ),
    "inspect-personamem try --dataset v3": "tests/datasets/v3/test_v3_try.py",
}
"""Each `try` command the docs print, by the test that runs it as printed (too heavy to
run twice, it is no recipe): the test holds the command's text, which `printed` checks."""
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SAVED = re.compile(r"save_random_model\(Path\(\"([^\"]+)\"\)")


def blocks(page: str) -> list[tuple[str, str, bool]]:
    """Each fenced block of a page: its language, its text and whether it is marked a
    recipe (the marker on the line before its fence)."""
    found: list[tuple[str, str, bool]] = []
    for match in _FENCE.finditer(page):
        before = page[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((match[1], match[2], before.strip() == MARK))
    return found


def read(doc: str) -> str:
    return (ROOT / doc).read_text(encoding="utf-8")


def commands(text: str) -> list[str]:
    """A shell block's commands: continued lines joined, comments and blank lines left
    out, runs of spaces made one."""
    joined = re.sub(r"\\\n\s*", " ", text)
    lines = (re.sub(r"(^|\s)#.*$", "", line) for line in joined.splitlines())
    return [" ".join(line.split()) for line in lines if line.strip()]


def random_models() -> set[str]:
    """The folders a page's Python saves a random model to (`save_random_model`)."""
    return {
        saved
        for doc in PAGES
        for language, text, _ in blocks(read(doc))
        if language == "python"
        for saved in _SAVED.findall(text)
    }


def is_offline(command: str, saved: set[str]) -> bool:
    """Whether a command runs offline: `try`, the package's offline models, or a model a
    page saves (`-M model_path=$PWD/tiny-model`)."""
    return (
        TRY in command
        or any(model in command for model in OFFLINE_MODELS)
        or any(f"model_path=$PWD/{folder}" in command for folder in saved)
    )


def printed(command: str) -> str:
    """`command`, checked to be printed as it stands in a shell block of the docs."""
    every = {
        line
        for doc in PAGES
        for language, text, _ in blocks(read(doc))
        if language in SHELLS
        for line in commands(text)
    }
    assert command in every, f"no page prints {command!r}"
    return command


def pip_stand_in(folder: Path) -> Path:
    """A folder holding `pip` as the tests run it, to put first on PATH: `pip install -e
    ".[extra]"` checks the extra is the package's and each of its requirements is
    installed, and installs nothing; anything else fails."""
    bin_dir = folder / "pip-stand-in"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "pip"
    script.write_text(
        f"#!{sys.executable}\n"
        + """import re, sys
from importlib import metadata
from packaging.requirements import Requirement

args = sys.argv[1:]
wanted = re.fullmatch(r"\\.\\[(\\w+)\\]", args[2]) if args[:2] == ["install", "-e"] else None
if len(args) != 3 or wanted is None:
    sys.exit(f"pip stand-in: not an install of an extra: {args}")
required = [Requirement(r) for r in metadata.requires("inspect-personamem") or []]
extra = [r for r in required if r.marker and r.marker.evaluate({"extra": wanted[1]})]
if not extra:
    sys.exit(f"pip stand-in: the package has no extra {wanted[1]!r}")
for requirement in extra:
    metadata.version(requirement.name)  # raises where it is not installed
""",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bin_dir
