"""The report's figures (PNG and SVG), drawn with matplotlib's object API.

matplotlib is needed only here (the `report` extra); no pyplot, so no global state and
no display is touched. Figure sizes are fixed (`SIZES` at `DPI`), so the images have
known pixel sizes. Error bars and bands are the 95% intervals of `accuracy.py`. What is
drawn per group comes from the runs' dataset version (`Group`: its values' titles); a
version's own figures (beside its published numbers) are drawn in its package with these
helpers. Each run has one colour in every figure (`palette`, by run label), so a method
is found by its colour from figure to figure.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from inspect_personamem.datasets.base import Group
from inspect_personamem.report.accuracy import NO_ESTIMATE, Accuracy, RunSummary
from inspect_personamem.report.costs import RunCost
from inspect_personamem.report.graded import ChoiceOpenPair
from inspect_personamem.report.pairs import MethodGroup
from inspect_personamem.report.retrieval import (
    REFERENCES,
    EvidenceUse,
    RetrievalRun,
    shown_value,
    use_by_value,
)
from inspect_personamem.report.tables import shown_values
from inspect_personamem.report.tool_use import PER_QUESTION, per_question

DPI = 100
SIZES: dict[str, tuple[float, float]] = {
    "categories": (12.0, 6.5),
    "sessions": (11.0, 6.0),
    "methods": (12.0, 6.5),
    "cost": (11.0, 6.5),
    "choice_open": (15.0, 6.0),
    "evidence": (15.0, 6.5),
    "tool_use": (11.0, 6.0),
}
"""Figure kind -> size in inches; pixels are these times DPI (a version's own figures
give theirs in its package)."""
FORMATS = ("png", "svg")
CHANCE = 0.25
TOP = 1.05
"""Where an accuracy axis ends: a little past 1.0, so that a bar or point at 1.0 and
its interval stay clear of the frame."""


def save(figure: Figure, folder: Path, stem: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{stem}.{fmt}" for fmt in FORMATS]
    for path in paths:
        figure.savefig(path, dpi=DPI, format=path.suffix[1:])
    return paths


def titled(title: str, suffix: str) -> str:
    return f"{title}\n{suffix}" if suffix else title


Colour = tuple[float, float, float, float]
PUBLISHED_COLOUR: Colour = (0.35, 0.35, 0.35, 1.0)
"""The published numbers' bars and line: grey, a colour no run has."""


def palette(summaries: Sequence[RunSummary]) -> dict[str, Colour]:
    """Run label -> its colour in every figure, in the order of the runs."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(summaries) <= 10 else "tab20"]
    return {s.label: cmap(i % cmap.N) for i, s in enumerate(summaries)}


def errors(estimates: Sequence[Accuracy]) -> list[list[float]]:
    """Asymmetric error bar lengths; no bar where the interval is undefined (and none
    below zero where a bound rounds past the accuracy at 0 or 1)."""
    below = [0.0 if math.isnan(e.low) else max(0.0, e.accuracy - e.low) for e in estimates]
    above = [0.0 if math.isnan(e.high) else max(0.0, e.high - e.accuracy) for e in estimates]
    return [below, above]


def group_axis(
    axes: Axes, keys: Sequence[str], titles: Mapping[str, str], chance: float | None = CHANCE
) -> None:
    """An axis of bars per value (`bars`): known values by their `titles` (question
    types), others by their names; a dotted line at `chance` (4 options; none where the
    runs choose no option)."""
    axes.set_xticks(range(len(keys)))
    shown = [titles.get(k, k.replace("_", " ")) for k in keys]
    axes.set_xticklabels([textwrap.fill(title, 16) for title in shown], fontsize=9)
    axes.set_ylim(0, TOP)
    axes.set_ylabel("accuracy")
    chance_line(axes, chance)
    axes.grid(axis="y", alpha=0.3)


def chance_line(axes: Axes, chance: float | None) -> None:
    """A dotted line at `chance`, where there is one."""
    if chance is not None:
        axes.axhline(chance, color="grey", linestyle=":", linewidth=1, label="chance (4 options)")


def bars(axes: Axes, series: Sequence[tuple[str, list[Accuracy] | list[float], Colour]]) -> None:
    """Grouped bars, one group per value (the seven categories, say), one series (label,
    values, colour) per run (or published model)."""
    width = 0.8 / max(1, len(series))
    for i, (label, values, colour) in enumerate(series):
        xs = [c - 0.4 + width * (i + 0.5) for c in range(len(values))]
        heights = [v.accuracy if isinstance(v, Accuracy) else v for v in values]
        estimates = [v for v in values if isinstance(v, Accuracy)]
        yerr = errors(estimates) if len(estimates) == len(values) else None
        axes.bar(
            xs, heights, width, label=label, color=colour, yerr=yerr, capsize=2,
            error_kw={"elinewidth": 0.8, "ecolor": "#444444"},
        )  # fmt: skip


Series = list[tuple[str, list[Accuracy] | list[float], Colour]]
"""Bars' series: (label, one value per group value, colour) each."""


def run_series(
    summaries: Sequence[RunSummary], key: str, values: Sequence[str], colours: Mapping[str, Colour]
) -> Series:
    """Each run's accuracy per value of its group `key`, in the order of `values` (none
    where a run has no question of a value), as `bars` draws it."""
    return [
        (s.label, [s.groups.get(key, {}).get(v, NO_ESTIMATE) for v in values], colours[s.label])
        for s in summaries
    ]


def _bars_figure(
    size: str, series: Series, by: tuple[Sequence[str], Mapping[str, str]], heading: str,
    folder: Path, stem: str, chance: float | None = CHANCE,
) -> list[Path]:  # fmt: skip
    """A figure of grouped bars over `by` (values, and their titles), saved."""
    figure = Figure(figsize=SIZES[size], layout="constrained")
    axes = figure.subplots()
    bars(axes, series)
    group_axis(axes, *by, chance)
    heights = [v.accuracy if isinstance(v, Accuracy) else v for _, vs, _ in series for v in vs]
    lowest = min((h for h in heights if not math.isnan(h)), default=0.0)
    if lowest < 0:  # a mean of scores below 0 (`tables.below_zero`): drawn, not called accuracy
        axes.set_ylim(lowest - 0.05, TOP)
        axes.set_ylabel("mean score (below 0: not an accuracy)")
    axes.set_title(heading)
    legend(figure, axes)
    return save(figure, folder, stem)


def group_figure(
    summaries: Sequence[RunSummary],
    group: Group,
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
    part: tuple[str, Sequence[str]] | None = None,
    chance: float | None = CHANCE,
) -> list[Path]:
    """Accuracy per value of `group` some run has (`tables.shown_values`), runs side by
    side (the paper's Figure 3: per question type); with `part` (its name, its values)
    those values alone, the part named in the title (a task family's task types); a
    chance line where `chance` is given."""
    keys = list(part[1]) if part else shown_values(summaries, group)
    series = run_series(summaries, group.key, keys, colours)
    within = f": {part[0]}" if part else ""
    heading = titled(f"Accuracy per {group.title}{within} (95% intervals)", title)
    return _bars_figure("categories", series, (keys, group.values), heading, folder, stem, chance)


def methods_figure(
    group: MethodGroup,
    by: Group,
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
) -> list[Path]:
    """One model's methods side by side per known value of `by` (the paper's Figure 5:
    per question type), each with its mean over them."""
    keys = list(by.values)
    series: Series = [
        (
            ", ".join([label, *s.run.marks]) + f" (macro {s.mean_of(by):.2f})",
            [s.groups.get(by.key, {}).get(k, NO_ESTIMATE) for k in keys],
            colours[s.label],
        )
        for label, s in group.runs
    ]
    heading = titled(f"Methods per {by.title}: {group.title} (95% intervals)", title)
    return _bars_figure("methods", series, (keys, by.values), heading, folder, stem)


def choice_open_figure(
    pair: ChoiceOpenPair,
    by: Group,
    bins: tuple[Group, str, str],
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
) -> list[Path]:
    """A model's chosen answers beside its open ones, per known value of `by` (question
    type) and per value of a group of bins its open run's questions have (`bins`: the
    group, what it bins in words and its axis label: `sessions elapsed`, `sessions
    elapsed since the relevant preference`; the paper's Figure 6)."""
    binned, words, along = bins
    figure = Figure(figsize=SIZES["choice_open"], layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=(3, 2))
    runs = (pair.chosen, pair.open)
    keys = list(by.values)
    bars(left, run_series(runs, by.key, keys, colours))
    group_axis(left, keys, by.values)
    left.set_title(f"Accuracy per {by.title}")
    values = list(pair.open.groups.get(binned.key, {}))
    bars(right, run_series(runs, binned.key, values, colours))
    group_axis(right, values, binned.values)
    right.set_xlabel(along)
    right.set_title(f"Accuracy by {words}")
    legend(figure, left)
    figure.suptitle(
        titled(f"Chosen against open answers (95% intervals): {pair.open.label}", title)
    )
    return save(figure, folder, stem)


def legend(figure: Figure, axes: Axes) -> None:
    """One legend below the plot, where it hides no bar or line."""
    handles, labels = axes.get_legend_handles_labels()
    longest = max(len(label) for label in labels)
    columns = 3 if longest <= 40 else 2 if longest <= 60 else 1
    figure.legend(handles, labels, loc="outside lower center", ncols=columns, fontsize=9)


def value_lines(
    axes: Axes,
    summary: RunSummary,
    group: Group,
    colour: object,
    label: str,
    offset: float = 0.0,
    band: bool = True,
) -> None:
    """A run's accuracy per value of a numeric `group` (sessions elapsed), a line with
    its 95% band (unless `band` is False), moved `offset` along the axis."""
    by = summary.groups.get(group.key, {})
    xs = sorted(by, key=float)
    estimates = [by[x] for x in xs]
    at = [float(x) + offset for x in xs]
    axes.plot(at, [e.accuracy for e in estimates], marker="o", color=colour, label=label)
    if band:
        axes.fill_between(
            at, [e.low for e in estimates], [e.high for e in estimates], color=colour, alpha=0.15
        )


def coinciding(summaries: Sequence[RunSummary], group: Group) -> dict[str, list[str]]:
    """Run label -> the labels of the runs (itself among them, in order) whose lines over
    `group` coincide with its own: the same accuracy and interval at every value."""
    by_line: dict[tuple[tuple[str, ...], ...], list[str]] = {}
    for s in summaries:
        by = s.groups.get(group.key, {})
        line = tuple(
            (x, *(f"{v:.9f}" for v in (by[x].accuracy, by[x].low, by[x].high)))
            for x in sorted(by, key=float)
        )
        by_line.setdefault(line, []).append(s.label)
    return {label: same for same in by_line.values() for label in same}


SIDE_BY_SIDE = 0.012
"""How far apart coinciding lines are drawn, as a share of the axis's span of values."""


def runs_lines(
    axes: Axes, summaries: Sequence[RunSummary], group: Group, colours: Mapping[str, Colour]
) -> None:
    """Each run's line over a numeric `group` (`value_lines`); lines that coincide
    (`coinciding`) are drawn side by side, one band for them all, and each one's legend
    entry says so, so that every run is seen."""
    same = coinciding(summaries, group)
    values = [float(v) for s in summaries for v in s.groups.get(group.key, {})]
    step = SIDE_BY_SIDE * ((max(values) - min(values)) or 1.0) if values else 0.0
    for s in summaries:
        lines, i = same[s.label], same[s.label].index(s.label)
        others = len(lines) - 1
        label = (
            f"{s.label} (the same line as {others} other{'s' if others > 1 else ''}, "
            "drawn beside it)"
            if others
            else s.label
        )
        offset = (i - others / 2) * step
        value_lines(axes, s, group, colours[s.label], label, offset, band=i == 0)


def lines_axis(axes: Axes, along: str) -> None:
    """An accuracy axis over a numeric group, `along` its label."""
    axes.set_xlabel(along)
    axes.set_ylabel("accuracy")
    axes.set_ylim(0, TOP)
    chance_line(axes, CHANCE)
    axes.grid(alpha=0.3)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def lines_figure(
    summaries: Sequence[RunSummary],
    group: Group,
    along: str,
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
) -> list[Path]:
    """Accuracy against a numeric `group` (`along` in words), one line and band per run,
    those that coincide side by side (`runs_lines`; the paper's Figure 4: sessions
    elapsed)."""
    figure = Figure(figsize=SIZES["sessions"], layout="constrained")
    axes = figure.subplots()
    runs_lines(axes, summaries, group, colours)
    lines_axis(axes, along)
    axes.set_title(titled(f"Accuracy by {group.title} (bands: 95% intervals)", title))
    legend(figure, axes)
    return save(figure, folder, stem)


def cost_figure(
    costs: Sequence[RunCost],
    colours: Mapping[str, Colour],
    folder: Path,
    title: str,
    stem: str = "cost",
    chance: float | None = CHANCE,
) -> list[Path]:
    """Accuracy against input tokens per question (the model's and the memory system's),
    one point per run; each no-history run a dashed reference line in its colour; a
    chance line where `chance` is given."""
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
            yerr=errors([s.overall]), fmt="o", color=colour, capsize=3, markersize=7,
            label=s.label + (" (dashed line)" if reference else ""),
        )  # fmt: skip
    axes.set_xlabel("input tokens per question (model + memory system)")
    axes.set_ylabel("accuracy")
    axes.set_ylim(0, TOP)
    axes.set_xlim(left=0)
    chance_line(axes, chance)
    axes.grid(alpha=0.3)
    axes.set_title(titled("Accuracy against input tokens per question (95% intervals)", title))
    legend(figure, axes)
    return save(figure, folder, stem)


def tool_use_figure(
    summaries: Sequence[RunSummary],
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
) -> list[Path]:
    """What each run's model did with its tools, per question (`tool_use.PER_QUESTION`:
    calls, reads, writes, turns), a bar per run; a run without tools is in the legend,
    marked so, with no bar, so that every run is seen."""
    figure = Figure(figsize=SIZES["tool_use"], layout="constrained")
    axes = figure.subplots()
    series: Series = [
        (s.label, list(per_question(s).values()), colours[s.label])
        for s in summaries
        if s.run.tool_use
    ]
    bars(axes, series)
    for s in summaries:  # in the legend, with no bar
        if not s.run.tool_use:
            axes.bar([], [], color=colours[s.label], label=f"{s.label} (no tools)")
    axes.set_xlim(-0.5, len(PER_QUESTION) - 0.5)
    axes.set_xticks(range(len(PER_QUESTION)))
    axes.set_xticklabels([f"{measure} per question" for measure in PER_QUESTION], fontsize=9)
    axes.set_ylabel("mean per question with tools")
    axes.grid(axis="y", alpha=0.3)
    axes.set_title(titled("Tool use: what each run's model read and wrote", title))
    legend(figure, axes)
    return save(figure, folder, stem)


USE_SHARES: tuple[tuple[str, Callable[[EvidenceUse], float], str], ...] = (
    ("right", lambda use: use.right, "#59a14f"),
    ("wrong although the evidence was found (misuse)", lambda use: use.wrong("found"), "#f28e2b"),
    ("wrong, the evidence missed (a retrieval miss)", lambda use: use.wrong("missed"), "#e15759"),
    (
        "wrong, not checked (items without positions, or evidence not located)",
        lambda use: use.errors - use.wrong("found") - use.wrong("missed"),
        "#bab0ac",
    ),
)
"""The stacked parts of a bar of `evidence_figure`, bottom up: label, the questions
(scores summed) it counts, colour."""
REFERENCE_STYLES = dict(zip((kind for kind, _ in REFERENCES[:2]), ("solid", "dashed"), strict=True))
"""How the kinds of a retrieval run's references drawn over its bars
(`retrieval.REFERENCES`) are drawn: the upper bound solid, the full history dashed; the
others are in the table alone."""


def evidence_figure(
    run: RetrievalRun, groups: Sequence[Group], folder: Path, stem: str, title: str
) -> list[Path]:
    """A retrieval run's questions, over all of them and per value of each of `groups`,
    as stacked shares (`USE_SHARES`): right, wrong although the evidence was found,
    wrong and missed, wrong and not checked; over each bar a short line per reference
    run (the upper bound, the full history): its accuracy on those of the bar's
    questions both runs scored."""
    panels: list[tuple[Group | None, list[tuple[str, EvidenceUse]]]] = []
    for group, value, use in use_by_value(run.summary, groups):
        if not panels or panels[-1][0] is not group:
            panels.append((group, []))
        panels[-1][1].append((value, use))
    figure = Figure(figsize=SIZES["evidence"], layout="constrained")
    all_axes = figure.subplots(
        1, len(panels), sharey=True, squeeze=False,
        width_ratios=[len(bars) + 0.5 for _, bars in panels],
    )[0]  # fmt: skip
    for axes, (group, bars) in zip(all_axes, panels, strict=True):
        xs = range(len(bars))
        bottom = [0.0] * len(bars)
        for label, counted, colour in USE_SHARES:
            heights = [counted(use) / use.questions for _, use in bars]
            axes.bar(xs, heights, 0.7, bottom=bottom, color=colour, label=label)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        for reference in (r for r in run.references if r.kind in REFERENCE_STYLES):
            axes.hlines(
                [_accuracy_of(reference.reference, group, value) for value, _ in bars],
                [x - 0.45 for x in xs], [x + 0.45 for x in xs], colors="black",
                linestyles=REFERENCE_STYLES[reference.kind], linewidth=2,
                label=f"{reference.kind}: its accuracy on these questions",
            )  # fmt: skip
        axes.set_xticks(xs)
        shown = [shown_value(group, value) for value, _ in bars]
        axes.set_xticklabels(
            [textwrap.fill(label, 16, break_long_words=False) for label in shown], fontsize=8
        )
        axes.set_title(group.title if group else "all questions", fontsize=10)
        axes.set_ylim(0, TOP)
        axes.grid(axis="y", alpha=0.3)
    all_axes[0].set_ylabel("share of questions")
    figure.suptitle(titled(f"Found against used: {run.summary.label}", title))
    legend(figure, all_axes[0])
    return save(figure, folder, stem)


def _accuracy_of(summary: RunSummary, group: Group | None, value: str) -> float:
    """A run's accuracy over its questions of `value` of `group` (over all of them
    where `group` is None); NaN where it has none."""
    if group is None:
        return summary.overall.accuracy
    return summary.groups.get(group.key, {}).get(value, NO_ESTIMATE).accuracy


def slug(text: str) -> str:
    """A file-name-safe form of a run label."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60]
