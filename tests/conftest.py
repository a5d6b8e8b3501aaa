"""Pytest fixtures, and the markers of tests that need an optional extra; helpers to
import live in the `support` package (`support/helpers.py` and beside it).

The package and Inspect are imported in the fixtures that use them: pytest-xdist's
controller loads this file too, and runs no test."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
import rich

EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "local_model": ("local", ("torch", "transformers", "accelerate")),
    "report": ("report", ("matplotlib",)),
    "memory": ("memory", ("sentence_transformers", "mem0", "mcp")),
}
"""Marker -> (the extra it needs, the modules that extra brings)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip, with the reason, every test marked for an extra that is not installed."""
    for marker, (extra, modules) in EXTRAS.items():
        missing = [module for module in modules if importlib.util.find_spec(module) is None]
        if not missing:
            continue
        skip = pytest.mark.skip(
            reason=f"needs the {extra} extra ({', '.join(missing)} missing): "
            f"pip install -e '.[{extra}]'"
        )
        for item in items:  # the marker itself: a folder's name is a keyword too
            if item.get_closest_marker(marker) is not None:
                item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def silent_inspect_console() -> None:
    """Inspect's console (rich's global one, which its log handler writes to) silent for
    the whole session, as Inspect's `none` display leaves it from its first run on: the
    tests' runs use the cheaper `log` display (`support.helpers.DISPLAY`), and no test
    reads what Inspect prints in-process."""
    rich.reconfigure(quiet=True)


def fresh_copy(made: Path, folder: Path) -> Path:
    """A copy of the generated folder `made` at `folder`, its files new (not their times
    copied), for one test to read or change: the generators write the same bytes on each
    call, and copying costs a thirtieth of generating again."""
    shutil.copytree(made, folder, copy_function=shutil.copyfile)
    return folder


@pytest.fixture(scope="session")
def small_split_made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`small_split`'s data, generated once a session (each test gets a copy)."""
    from inspect_personamem.datasets.v1.generator import generate_split

    folder = tmp_path_factory.mktemp("small_split") / "data"
    generate_split(folder, "32k", contexts=3, min_messages=30, max_messages=60, questions=24)
    return folder


@pytest.fixture
def small_split(tmp_path: Path, small_split_made: Path) -> Path:
    """A folder with a small synthetic 32k split: 3 contexts, 24 questions."""
    return fresh_copy(small_split_made, tmp_path / "data")


@pytest.fixture(scope="session")
def small_v2_made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`small_v2`'s subset, generated once a session (each test gets a copy)."""
    from support.helpers import SMALL_V2

    from inspect_personamem.datasets.v2.generator import generate_v2

    folder = tmp_path_factory.mktemp("small_v2") / "v2"
    generate_v2(folder, shape=SMALL_V2)
    return folder


@pytest.fixture
def small_v2(tmp_path: Path, small_v2_made: Path) -> Path:
    """A folder with a small synthetic PersonaMem-v2 benchmark subset in the released
    layout (`SMALL_V2`)."""
    return fresh_copy(small_v2_made, tmp_path / "v2")


@pytest.fixture
def chromium() -> str:
    """Chromium's path (the report's pages and `inspect view` are read in it); the test
    is skipped where it is not installed."""
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.skip("chromium is not installed")
    return path
