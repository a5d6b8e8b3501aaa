"""The report's figures (`report/figures.py`, a version's own): their files, pixel
sizes and colours."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from support.reports import (
    TAB10,
    Logs,
    MethodLogs,
    bar_colours,
    methods_report,
    png_size,
)

from inspect_personamem.report.accuracy import summarise
from inspect_personamem.report.axes import axes_label
from inspect_personamem.report.read.logs import read_runs

pytest.importorskip("matplotlib", reason="needs the report extra: pip install -e '.[report]'")

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from inspect_personamem.report.figures import DPI, SIZES, palette, runs_lines  # noqa: E402
from inspect_personamem.report.paper_figures import SIZE as PUBLISHED_SIZE  # noqa: E402


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


def test_lines_that_coincide_are_drawn_side_by_side_and_said_to(logs: Logs) -> None:
    """Three runs with the same accuracy and interval at every number of sessions (one
    log under three labels) beside another: the three are drawn apart, each in its
    colour, their one band once, and each legend entry says it shares its line; the
    other run's line is where its values are."""
    [full] = read_runs([logs.locations["a_full"]]).runs
    [none] = read_runs([logs.locations["a_none"]]).runs
    summaries = [summarise(full, label) for label in ("A", "B", "C")] + [summarise(none, "D")]
    [sessions] = [g for g in full.entry.groups if g.key == "distance_to_ref_in_blocks"]
    colours = palette(summaries)
    axes = Figure().subplots()
    runs_lines(axes, summaries, sessions, colours)
    lines = {line.get_label(): line for line in axes.get_lines()}
    same = "(the same line as 2 others, drawn beside it)"
    assert set(lines) == {f"{label} {same}" for label in "ABC"} | {"D"}
    xs = {label: _xs(lines[f"{label} {same}"]) for label in "ABC"}
    assert len(set(xs.values())) == 3  # three lines, none under another
    values = sorted(summaries[0].groups[sessions.key], key=float)
    for label in "ABC":  # each beside the values, by less than a tenth of a session
        assert all(abs(x - float(v)) < 0.1 for x, v in zip(xs[label], values, strict=True))
        assert lines[f"{label} {same}"].get_color() == colours[label]
    assert list(_xs(lines["D"])) == [
        float(v) for v in sorted(summaries[3].groups[sessions.key], key=float)
    ]
    assert len(axes.collections) == 2  # one band for A, B and C, one for D


def _xs(line: Line2D) -> tuple[float, ...]:
    """Where a line's points lie along its axis."""
    return tuple(np.asarray(line.get_xdata(), dtype=float).tolist())
