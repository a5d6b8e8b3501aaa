"""Which modules with logic have a test file of their own (issue 37: at least 85% of the
modules over 60 lines).

    python scripts/test_coverage_of_modules.py            the ratio, and the modules lacking one
    python scripts/test_coverage_of_modules.py --min 85   exit 1 below 85%

A module `src/inspect_personamem/<dir>/<name>.py` counts as tested where its mirror
folder `tests/<dir>/` holds `test_<name>.py`, or a test file whose name joins `<name>`
to a qualifier with an underscore (`test_v1_records.py`, `test_mcp_config_errors.py`),
or where a folder `tests/<dir>/<name>/` mirrors the module. Lines are counted as the
file has them, docstrings included.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "inspect_personamem"
TESTS = ROOT / "tests"
MIN_LINES = 60
"""Modules of more lines than this count (shorter ones are mostly re-exports and tables)."""


def counted_modules() -> list[Path]:
    """The package's modules over `MIN_LINES` lines, relative to the package."""
    return sorted(
        path.relative_to(PACKAGE)
        for path in PACKAGE.rglob("*.py")
        if len(path.read_text(encoding="utf-8").splitlines()) > MIN_LINES
    )


def has_test_file(module: Path) -> bool:
    """Whether `module` (relative to the package) has a test file, as the docstring says."""
    mirror = TESTS / module.parent
    name = module.stem
    if (mirror / name).is_dir():
        return True
    for test in mirror.glob("test_*.py"):
        stem = test.stem.removeprefix("test_")
        if stem == name or stem.startswith(f"{name}_") or stem.endswith(f"_{name}"):
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=float, help="fail below this percentage")
    args = parser.parse_args(argv)
    modules = counted_modules()
    lacking = [module for module in modules if not has_test_file(module)]
    share = 100 * (len(modules) - len(lacking)) / len(modules)
    print(
        f"{len(modules) - len(lacking)} of {len(modules)} modules over {MIN_LINES} lines "
        f"have a test file: {share:.1f}%"
    )
    for module in lacking:
        print(f"  lacking: {module}")
    return 1 if args.min is not None and share < args.min else 0


if __name__ == "__main__":
    sys.exit(main())
