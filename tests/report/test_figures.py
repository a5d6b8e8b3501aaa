"""The report's figures (`report/figures.py`, a version's own): their files, pixel
sizes and colours."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from support.reports import (
    TAB10,
    MethodLogs,
    bar_colours,
    methods_report,
    png_size,
)

from inspect_personamem.report.axes import axes_label

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

from inspect_personamem.datasets.v1.figures import SIZE as PUBLISHED_SIZE  # noqa: E402
from inspect_personamem.report.figures import DPI, SIZES  # noqa: E402


def test_figures_exist_with_their_sizes_and_the_page_embeds_them(report_dir: Path) -> None:
    figures = report_dir / "figures"
    expected = {
        "categories": SIZES["categories"],
        "sessions": SIZES["sessions"],
        **{path.stem: PUBLISHED_SIZE for path in figures.glob("published_*.png")},
    }
    assert len(expected) == 4  # two full-history model-a runs next to GPT-4o
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    for stem, (width, height) in expected.items():
        png, svg = figures / f"{stem}.png", figures / f"{stem}.svg"
        assert png_size(png) == (round(width * DPI), round(height * DPI))
        assert png.stat().st_size > 10_000
        assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")
        assert f'href="figures/{stem}.png"' in page and f'href="figures/{stem}.svg"' in page
        assert base64.b64encode(png.read_bytes()).decode("ascii") in page
    for name in (
        "overall", "runs", "categories", "gain", "sessions", "topics", "published",
    ):  # fmt: skip
        assert f'href="tables/{name}.csv"' in page
        assert (report_dir / "tables" / f"{name}.md").read_text(encoding="utf-8").startswith("## ")
    # self-contained: nothing is fetched from elsewhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "mockllm test run" in page


def test_a_run_has_one_colour_in_every_figure(method_logs: MethodLogs, tmp_path: Path) -> None:
    """The methods figure orders runs by method (no history first), the categories figure
    by start time: a run's bars have the same colour in both, and runs differ in colour."""
    report = methods_report(method_logs, tmp_path)
    colours = {s.label: c for s, c in zip(report.summaries, TAB10, strict=True)}
    by_start = [colours[s.label] for s in report.summaries]
    assert bar_colours(tmp_path / "figures" / "categories.svg") == by_start
    labels = {axes_label(s.run.settings, s.run.entry): s.label for s in report.summaries}
    methods = ["no history", "full history", "memory (support.memories:SpyMemory)"]
    by_method = [colours[labels[m]] for m in [*methods, "rag (bm25, top 4)"]]
    [svg] = (tmp_path / "figures").glob("methods_1_*.svg")
    assert bar_colours(svg) == by_method != by_start
