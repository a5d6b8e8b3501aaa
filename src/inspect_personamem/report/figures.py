"""The report's figures (PNG and SVG), drawn with matplotlib's object API.

matplotlib is needed only here (the `report` extra); no pyplot, so no global state
and no display is touched. Figure sizes are fixed (`SIZES` at `DPI`), so the images
have known pixel sizes. Error bars and bands are the 95% intervals of `accuracy.py`.
Each run has one colour in every figure (`palette`, by run label), so a method is
found by its colour from figure to figure.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from inspect_personamem.datasets.v1.question_types import CATEGORIES, CATEGORY_TITLES
from inspect_personamem.datasets.v2.published import PublishedV2, paper_range, published_v2
from inspect_personamem.report.accuracy import NO_ESTIMATE, Accuracy, RunSummary
from inspect_personamem.report.costs import RunCost
from inspect_personamem.report.graded import ChoiceOpenPair
from inspect_personamem.report.published import SPLIT, PublishedModel
from inspect_personamem.report.tables import MethodGroup
from inspect_personamem.scoring.metrics import group_order

DPI = 100
SIZES: dict[str, tuple[float, float]] = {
    "categories": (12.0, 6.5),
    "sessions": (11.0, 6.0),
    "published": (15.0, 6.0),
    "methods": (12.0, 6.5),
    "cost": (11.0, 6.5),
    "choice_open": (15.0, 6.0),
    "v2": (16.0, 8.0),
}
"""Figure kind -> size in inches; pixels are these times DPI."""
FORMATS = ("png", "svg")
CHANCE = 0.25
TOP = 1.05
"""Where an accuracy axis ends: a little past 1.0, so that a bar or point at 1.0 and
its interval stay clear of the frame."""
LABEL_WIDTH = 52
"""Characters per line of a label on the v2 figure's axis of runs: longer labels wrap
onto lines, whole, rather than being cut."""
LINE_INCHES = 0.14
"""The height of one line of an 8 pt axis label: the v2 figure grows to give each row
the lines of its longest label and a gap."""


def _save(figure: Figure, folder: Path, stem: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{stem}.{fmt}" for fmt in FORMATS]
    for path in paths:
        figure.savefig(path, dpi=DPI, format=path.suffix[1:])
    return paths


def _titled(title: str, suffix: str) -> str:
    return f"{title}\n{suffix}" if suffix else title


Colour = tuple[float, float, float, float]
PUBLISHED_COLOUR: Colour = (0.35, 0.35, 0.35, 1.0)
"""The published numbers' bars and line: grey, a colour no run has."""


def palette(summaries: Sequence[RunSummary]) -> dict[str, Colour]:
    """Run label -> its colour in every figure, in the order of the runs."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(summaries) <= 10 else "tab20"]
    return {s.label: cmap(i % cmap.N) for i, s in enumerate(summaries)}


def _errors(estimates: Sequence[Accuracy]) -> list[list[float]]:
    """Asymmetric error bar lengths; no bar where the interval is undefined (and none
    below zero where a bound rounds past the accuracy at 0 or 1)."""
    below = [0.0 if math.isnan(e.low) else max(0.0, e.accuracy - e.low) for e in estimates]
    above = [0.0 if math.isnan(e.high) else max(0.0, e.high - e.accuracy) for e in estimates]
    return [below, above]


def _group_axis(axes: Axes, keys: Sequence[str]) -> None:
    """An axis of bars per group (`_bars`): question types by their titles, or other
    groups by their names."""
    axes.set_xticks(range(len(keys)))
    titles = [CATEGORY_TITLES.get(k, k.replace("_", " ")) for k in keys]
    axes.set_xticklabels([textwrap.fill(title, 16) for title in titles], fontsize=9)
    axes.set_ylim(0, TOP)
    axes.set_ylabel("accuracy")
    axes.axhline(CHANCE, color="grey", linestyle=":", linewidth=1, label="chance (4 options)")
    axes.grid(axis="y", alpha=0.3)


def _bars(axes: Axes, series: Sequence[tuple[str, list[Accuracy] | list[float], Colour]]) -> None:
    """Grouped bars, one group per value (the seven categories, say), one series (label,
    values, colour) per run (or published model)."""
    width = 0.8 / max(1, len(series))
    for i, (label, values, colour) in enumerate(series):
        xs = [c - 0.4 + width * (i + 0.5) for c in range(len(values))]
        heights = [v.accuracy if isinstance(v, Accuracy) else v for v in values]
        estimates = [v for v in values if isinstance(v, Accuracy)]
        yerr = _errors(estimates) if len(estimates) == len(values) else None
        axes.bar(
            xs, heights, width, label=label, color=colour, yerr=yerr, capsize=2,
            error_kw={"elinewidth": 0.8, "ecolor": "#444444"},
        )  # fmt: skip


def category_figure(
    summaries: Sequence[RunSummary], colours: Mapping[str, Colour], folder: Path, title: str
) -> list[Path]:
    """Accuracy per question type, runs side by side (the paper's Figure 3)."""
    figure = Figure(figsize=SIZES["categories"], layout="constrained")
    axes = figure.subplots()
    _bars(
        axes,
        [
            (s.label, [s.categories.get(k, NO_ESTIMATE) for k in CATEGORIES], colours[s.label])
            for s in summaries
        ],
    )
    _group_axis(axes, CATEGORIES)
    axes.set_title(_titled("Accuracy per question type (95% intervals)", title))
    _legend(figure, axes)
    return _save(figure, folder, "categories")


def methods_figure(
    group: MethodGroup, colours: Mapping[str, Colour], folder: Path, stem: str, title: str
) -> list[Path]:
    """One model's methods side by side per question type (the paper's Figure 5)."""
    figure = Figure(figsize=SIZES["methods"], layout="constrained")
    axes = figure.subplots()
    _bars(
        axes,
        [
            (
                ", ".join([label, *s.run.marks]) + f" (macro {s.macro:.2f})",
                [s.categories.get(k, NO_ESTIMATE) for k in CATEGORIES],
                colours[s.label],
            )
            for label, s in group.runs
        ],
    )
    _group_axis(axes, CATEGORIES)
    axes.set_title(_titled(f"Methods per question type: {group.title} (95% intervals)", title))
    _legend(figure, axes)
    return _save(figure, folder, stem)


def choice_open_figure(
    pair: ChoiceOpenPair, colours: Mapping[str, Colour], folder: Path, stem: str, title: str
) -> list[Path]:
    """A model's chosen answers beside its open ones, per question type and per bin of
    sessions elapsed (the paper's Figure 6)."""
    figure = Figure(figsize=SIZES["choice_open"], layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=(3, 2))
    runs = (pair.chosen, pair.open)
    _bars(
        left,
        [
            (s.label, [s.categories.get(k, NO_ESTIMATE) for k in CATEGORIES], colours[s.label])
            for s in runs
        ],
    )
    _group_axis(left, CATEGORIES)
    left.set_title("Accuracy per question type")
    bins = list(pair.open.bins)
    _bars(
        right,
        [(s.label, [s.bins.get(b, NO_ESTIMATE) for b in bins], colours[s.label]) for s in runs],
    )
    _group_axis(right, bins)
    right.set_xlabel("sessions elapsed since the relevant preference")
    right.set_title("Accuracy by sessions elapsed")
    _legend(figure, left)
    figure.suptitle(
        _titled(f"Chosen against open answers (95% intervals): {pair.open.label}", title)
    )
    return _save(figure, folder, stem)


def _legend(figure: Figure, axes: Axes) -> None:
    """One legend below the plot, where it hides no bar or line."""
    handles, labels = axes.get_legend_handles_labels()
    longest = max(len(label) for label in labels)
    columns = 3 if longest <= 40 else 2 if longest <= 60 else 1
    figure.legend(handles, labels, loc="outside lower center", ncols=columns, fontsize=9)


def _session_lines(axes: Axes, summary: RunSummary, colour: object, label: str) -> None:
    xs = sorted(summary.sessions)
    estimates = [summary.sessions[x] for x in xs]
    axes.plot(xs, [e.accuracy for e in estimates], marker="o", color=colour, label=label)
    axes.fill_between(
        xs, [e.low for e in estimates], [e.high for e in estimates], color=colour, alpha=0.15
    )


def _sessions_axis(axes: Axes) -> None:
    axes.set_xlabel("sessions elapsed since the relevant preference")
    axes.set_ylabel("accuracy")
    axes.set_ylim(0, TOP)
    axes.axhline(CHANCE, color="grey", linestyle=":", linewidth=1, label="chance (4 options)")
    axes.grid(alpha=0.3)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def sessions_figure(
    summaries: Sequence[RunSummary], colours: Mapping[str, Colour], folder: Path, title: str
) -> list[Path]:
    """Accuracy against sessions elapsed, one line and band per run (the paper's Figure 4)."""
    figure = Figure(figsize=SIZES["sessions"], layout="constrained")
    axes = figure.subplots()
    for summary in summaries:
        _session_lines(axes, summary, colours[summary.label], summary.label)
    _sessions_axis(axes)
    axes.set_title(_titled("Accuracy by sessions elapsed (bands: 95% intervals)", title))
    _legend(figure, axes)
    return _save(figure, folder, "sessions")


def published_figure(
    summary: RunSummary,
    published: PublishedModel,
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
) -> list[Path]:
    """One run next to the published numbers of the model it maps to."""
    figure = Figure(figsize=SIZES["published"], layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=(3, 2))
    ours = f"{summary.label} (this run)"
    theirs = f"{published.name} (published, {SPLIT})"
    _bars(
        left,
        [
            (
                ours,
                [summary.categories.get(k, NO_ESTIMATE) for k in CATEGORIES],
                colours[summary.label],
            ),
            (
                theirs,
                [published.categories.get(k, math.nan) for k in CATEGORIES],
                PUBLISHED_COLOUR,
            ),
        ],
    )
    _group_axis(left, CATEGORIES)
    left.set_title("Accuracy per question type")

    _session_lines(right, summary, colours[summary.label], ours)
    xs = sorted(published.sessions)
    right.plot(
        xs, [published.sessions[x] for x in xs], marker="s", color=PUBLISHED_COLOUR, label=theirs
    )
    _sessions_axis(right)
    right.set_title("Accuracy by sessions elapsed")
    _legend(figure, right)
    figure.suptitle(_titled(f"{summary.label} next to published {published.name}", title))
    return _save(figure, folder, stem)


def cost_figure(
    costs: Sequence[RunCost], colours: Mapping[str, Colour], folder: Path, title: str
) -> list[Path]:
    """Accuracy against input tokens per question (the model's and the memory system's),
    one point per run; each no-history run a dashed reference line in its colour."""
    figure = Figure(figsize=SIZES["cost"], layout="constrained")
    axes = figure.subplots()
    for c in costs:
        s = c.summary
        colour = colours[s.label]
        reference = s.run.settings["history"] == "none"
        if reference:
            axes.axhline(s.overall.accuracy, color=colour, linestyle="--", linewidth=1)
        axes.errorbar(
            [c.tokens.input + c.tokens.memory_input], [s.overall.accuracy],
            yerr=_errors([s.overall]), fmt="o", color=colour, capsize=3, markersize=7,
            label=s.label + (" (dashed line)" if reference else ""),
        )  # fmt: skip
    axes.set_xlabel("input tokens per question (model + memory system)")
    axes.set_ylabel("accuracy")
    axes.set_ylim(0, TOP)
    axes.set_xlim(left=0)
    axes.axhline(CHANCE, color="grey", linestyle=":", linewidth=1, label="chance (4 options)")
    axes.grid(alpha=0.3)
    axes.set_title(_titled("Accuracy against input tokens per question (95% intervals)", title))
    _legend(figure, axes)
    return _save(figure, folder, "cost")


def v2_figure(
    summaries: Sequence[RunSummary], colours: Mapping[str, Colour], folder: Path, title: str
) -> list[Path]:
    """PersonaMem-v2: the runs beside the published numbers (the paper's range a band,
    the vendors' self-reported numbers hollow), and accuracy per `pref_type`. The rows'
    labels wrap whole onto lines, and the figure is as tall as they need (with room for
    the titles and the legend, a line per run)."""
    paper = paper_range()
    published = [p for p in published_v2() if p is not paper]
    labels = [
        textwrap.fill(text, LABEL_WIDTH)
        for text in (
            *(s.label for s in summaries),
            *(f"{p.system} ({p.kind}{f', {p.model}' if p.model else ''})" for p in published),
        )
    ]
    lines = max(label.count("\n") + 1 for label in labels)
    width, height = SIZES["v2"]
    rows = len(labels) * (lines + 0.6) + 2 * len(summaries)
    figure = Figure(figsize=(width, max(height, 2.5 + rows * LINE_INCHES)), layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=(2, 3))
    _published_v2_axis(left, summaries, published, labels, colours)
    keys = sorted({k for s in summaries for k in s.groups.get("pref_type", {})}, key=group_order)
    _bars(
        right,
        [
            (s.label, [s.groups["pref_type"].get(k, NO_ESTIMATE) for k in keys], colours[s.label])
            for s in summaries
        ],
    )
    _group_axis(right, keys)
    right.set_title("Accuracy per preference type (pref_type)")
    _legend(figure, right)
    figure.suptitle(_titled("PersonaMem-v2 (95% intervals)", title))
    return _save(figure, folder, "v2")


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
            [s.overall.accuracy], [y], xerr=_errors([s.overall]), fmt="o",
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


def slug(text: str) -> str:
    """A file-name-safe form of a run label."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60]
