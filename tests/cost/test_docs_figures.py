"""The cost figures docs/scale-and-cost.md quotes are the estimate's own output: each
`<!-- estimate: ARGS | ROWS -->` marker is followed by a fenced block holding the rows
ROWS of `inspect-personamem estimate ARGS`, which this test runs (`{generated}`: the
generated v3 folder the docs name) and compares, row for row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspect_personamem.cli import main
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.spec import DATA_DIR_ENV

DOC = Path(__file__).resolve().parents[2] / "docs" / "scale-and-cost.md"
MARKER = re.compile(
    r"<!-- estimate: (?P<args>[^|]+)\| (?P<rows>[^>]+) -->\n```\n(?P<block>.*?)```", re.S
)
"""A marker, the rows it names, and the block after it."""

FIGURES = [m.groupdict() for m in MARKER.finditer(DOC.read_text(encoding="utf-8"))]


def test_the_docs_quote_figures_of_the_command() -> None:
    # the v3 section's declared, layout, tier and judge figures are all marked
    assert len(FIGURES) >= 7
    assert any("{generated}" in f["args"] and "grader cost" in f["rows"] for f in FIGURES)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # the folder the docs' `{generated}` figures are of (as the docs say)
    return generate(
        tmp_path_factory.mktemp("docs") / "v3", personas=3, queries_per_type=2, seed=7
    ).root


@pytest.mark.slow  # the declared figures are 22,000 requests
@pytest.mark.parametrize("figure", FIGURES, ids=[f["args"].strip() for f in FIGURES])
def test_each_figure_is_the_commands_output(
    figure: dict[str, str],
    generated: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    args = figure["args"].replace("{generated}", str(generated)).split()
    assert main(["estimate", *args]) == 0
    printed = {line[:21].strip(): line for line in capsys.readouterr().out.splitlines()}
    rows = [name.strip() for name in figure["rows"].split(",")]
    expected = "".join(f"{printed[name]}\n" for name in rows)
    assert figure["block"] == expected, f"docs/scale-and-cost.md, estimate {figure['args']}"
