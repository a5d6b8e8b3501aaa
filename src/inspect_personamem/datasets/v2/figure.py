"""PersonaMem-v2's figure: the runs beside the published numbers (the paper's range a
band, the vendors' self-reported numbers hollow), and accuracy per preference type
(drawn with the report's helpers, `report.figures`; matplotlib is needed, as there)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from inspect_personamem.datasets.v2.published import PublishedV2, paper_range, published_v2
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


def v2_figure(
    summaries: Sequence[RunSummary], colours: Mapping[str, Colour], folder: Path, title: str
) -> list[Path]:
    """PersonaMem-v2: the runs beside the published numbers (the paper's range a band,
    the vendors' self-reported numbers hollow; upper bounds aside, no method's result),
    and accuracy per `pref_type`. The rows' labels wrap whole onto lines, and the
    figure is as tall as they need (with room for the titles and the legend, a line per
    run)."""
    paper = paper_range()
    published = [p for p in published_v2() if p is not paper]
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
    _published_v2_axis(left, beside, published, labels, colours)
    keys = sorted({k for s in summaries for k in s.groups.get("pref_type", {})}, key=group_order)
    bars(right, run_series(summaries, "pref_type", keys, colours))
    group_axis(right, keys, {})
    right.set_title("Accuracy per preference type (pref_type)")
    legend(figure, right)
    figure.suptitle(titled("PersonaMem-v2 (95% intervals)", title))
    return save(figure, folder, "v2")


def _published_v2_axis(
    axes: Axes,
    summaries: Sequence[RunSummary],
    published: Sequence[PublishedV2],
    labels: Sequence[str],
    colours: Mapping[str, Colour],
) -> None:
    """One row per run and per published number (`labels`, in that order), the paper's
    range a band."""
    paper = paper_range()
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
    axes.set_title(
        f"Runs beside published numbers (band: the paper's {paper.shown} for frontier "
        "LLMs;\nhollow: self-reported by vendors through their own harnesses)",
        fontsize=9,
    )
