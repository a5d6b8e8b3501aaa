"""The command and the package (`report/build.py`, `report/cli.py`): bad input refused,
the report imported without matplotlib, every test module skipped without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.reports import (
    ROOT,
)

from inspect_personamem.cli import main
from inspect_personamem.report import ReportError, build_report
from inspect_personamem.report.read.logs import read_runs


def test_command_rejects_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such log file or folder" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["report", str(empty), "--out", str(tmp_path / "o"), "--published-name", "x=GPT-9"])
    assert code == 2
    assert "'GPT-9' is not a published model" in capsys.readouterr().err
    with pytest.raises(ReportError, match="no Inspect logs"):
        build_report([empty], tmp_path / "o")
    (empty / "broken.eval").write_bytes(b"not a zip file")
    with pytest.raises(ReportError, match="no PersonaMem runs"):
        build_report([empty], tmp_path / "o")
    [note] = read_runs([empty]).notes
    assert "broken.eval" in note and "not a readable Inspect log" in note


def test_package_and_report_import_without_matplotlib() -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import inspect_personamem, inspect_personamem.report, inspect_personamem.cli\n"
        "from inspect_personamem.report.build import _figures_module\n"
        "try:\n    _figures_module()\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "ReportError" in result.stdout and "inspect-personamem[report]" in result.stdout


def test_every_report_test_module_skips_naming_the_extra_without_matplotlib() -> None:
    """Without the report extra every test of every module here skips (by the `report`
    marker this folder's tests carry, or, where a module imports the figures, by the
    module itself), saying which extra to install; none runs or errors."""
    folder = ROOT / "tests" / "report"
    modules = sorted(str(path.relative_to(ROOT)) for path in folder.rglob("test_*.py"))
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import pytest\n"
        f"sys.exit(pytest.main(['-q', '-rs', '-n', '0', '-p', 'no:cacheprovider', *{modules!r}]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert {line.split()[2].split(":")[0] for line in skipped} == set(modules), result.stdout
    assert all("pip install -e '.[report]'" in line for line in skipped), skipped
    assert result.returncode == 0 and " passed" not in result.stdout, result.stdout[-2000:]
