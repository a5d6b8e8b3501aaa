"""The figure of a version whose runs are set beside its published numbers
(`declared.BesideLayout`, PersonaMem-v2's): the runs beside the published numbers (the
paper's range a band, the vendors' self-reported numbers hollow), and accuracy per value
of one group (drawn with the report's helpers, `report.figures`; matplotlib is needed,
as there)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from inspect_personamem.datasets.base import DatasetVersion, Group
from inspect_personamem.datasets.declared import Published, PublishedNumber
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.figures import (
    CHANCE,
    PUBLISHED_COLOUR,
    TOP,
    Colour,
    bars,
    errors,
    group_axis,
    legend,
    run_series,
    save,
    titled,
)
from inspect_personamem.scoring.metrics import group_order

SIZE = (16.0, 8.0)
"""The figure's least size in inches (`report.figures.DPI` per inch)."""
LABEL_WIDTH = 52
"""Characters per line of a label on the figure's axis of runs: longer labels wrap
onto lines, whole, rather than being cut."""
LINE_INCHES = 0.14
"""The height of one line of an 8 pt axis label: the figure grows to give each row
the lines of its longest label and a gap."""


def beside_figure(
    version: DatasetVersion[Any],
    by: Group,
    declared: Published,
    summaries: Sequence[RunSummary],
    colours: Mapping[str, Colour],
    folder: Path,
    title: str,
) -> list[Path]:
    """The version's runs beside its published numbers (the paper's range a band, the
    vendors' self-reported numbers hollow; upper bounds aside, no method's result), and
    accuracy per value of `by`. The rows' labels wrap whole onto lines, and the figure is
    as tall as they need (with room for the titles and the legend, a line per run)."""
    paper = declared.range()
    published = [p for p in declared.numbers() if p is not paper]
    beside = [s for s in summaries if not s.run.upper_bound]
    labels = [
        textwrap.fill(text, LABEL_WIDTH)
        for text in (
            *(s.label for s in beside),
            *(f"{p.system} ({p.kind}{f', {p.model}' if p.model else ''})" for p in published),
        )
    ]
    lines = max(label.count("\n") + 1 for label in labels)
    width, height = SIZE
    rows = len(labels) * (lines + 0.6) + 2 * len(summaries)
    figure = Figure(figsize=(width, max(height, 2.5 + rows * LINE_INCHES)), layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=(2, 3))
    _published_axis(left, beside, paper, published, labels, colours)
    keys = sorted({k for s in summaries for k in s.groups.get(by.key, {})}, key=group_order)
    bars(right, run_series(summaries, by.key, keys, colours))
    group_axis(right, keys, {})
    right.set_title(f"Accuracy per {by.title} ({by.key})")
    legend(figure, right)
    figure.suptitle(titled(f"{version.name} (95% intervals)", title))
    return save(figure, folder, version.key)


def _published_axis(
    axes: Axes,
    summaries: Sequence[RunSummary],
    paper: PublishedNumber | None,
    published: Sequence[PublishedNumber],
    labels: Sequence[str],
    colours: Mapping[str, Colour],
) -> None:
    """One row per run and per published number (`labels`, in that order), the paper's
    range, if any, a band."""
    if paper is not None:
        axes.axvspan(paper.low, paper.high, color=PUBLISHED_COLOUR, alpha=0.15)
    for y, s in enumerate(summaries):
        axes.errorbar(
            [s.overall.accuracy], [y], xerr=errors([s.overall]), fmt="o",
            color=colours[s.label], capsize=3,
        )  # fmt: skip
    for y, p in enumerate(published, start=len(summaries)):
        own = p.kind != "self-reported"
        axes.plot(
            [p.low], [y], marker="s" if own else "o", color=PUBLISHED_COLOUR,
            markerfacecolor=PUBLISHED_COLOUR if own else "none", linestyle="none",
        )  # fmt: skip
    axes.set_yticks(range(len(labels)))
    axes.set_yticklabels(labels, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, TOP)
    axes.set_xlabel("accuracy (of a run judged against the preference label: mean score)")
    axes.axvline(CHANCE, color="grey", linestyle=":", linewidth=1)
    axes.grid(axis="x", alpha=0.3)
    band = "" if paper is None else f"band: the paper's {paper.shown} for frontier LLMs;\n"
    axes.set_title(
        f"Runs beside published numbers ({band}hollow: self-reported by vendors through "
        "their own harnesses)",
        fontsize=9,
    )
