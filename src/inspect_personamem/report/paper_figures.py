"""The paper layout's own figure (`declared.PaperLayout`, PersonaMem's): a run next to
the authors' published numbers (drawn with the report's helpers, `report.figures`;
matplotlib is needed, as there)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from matplotlib.figure import Figure

from inspect_personamem.datasets.base import Group
from inspect_personamem.datasets.declared import PaperLayout, PublishedModel
from inspect_personamem.report.accuracy import NO_ESTIMATE, RunSummary
from inspect_personamem.report.figures import (
    PUBLISHED_COLOUR,
    Colour,
    bars,
    group_axis,
    legend,
    lines_axis,
    save,
    titled,
    value_lines,
)

SIZE = (15.0, 6.0)
"""The figure's size in inches (`report.figures.DPI` per inch)."""


def published_figure(
    summary: RunSummary,
    published: PublishedModel,
    layout: PaperLayout,
    groups: tuple[Group, Group],
    colours: Mapping[str, Colour],
    folder: Path,
    stem: str,
    title: str,
) -> list[Path]:
    """One run next to the published numbers of the model it maps to: per question type
    and by sessions elapsed (`groups`: the entry's two)."""
    category, sessions = groups
    figure = Figure(figsize=SIZE, layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=(3, 2))
    ours = f"{summary.label} (this run)"
    theirs = f"{published.name} (published, {layout.split})"
    keys = list(category.values)
    bars(
        left,
        [
            (
                ours,
                [summary.groups[category.key].get(k, NO_ESTIMATE) for k in keys],
                colours[summary.label],
            ),
            (
                theirs,
                [published.categories.get(k, math.nan) for k in keys],
                PUBLISHED_COLOUR,
            ),
        ],
    )
    group_axis(left, keys, category.values)
    left.set_title("Accuracy per question type")

    value_lines(right, summary, sessions, colours[summary.label], ours)
    xs = sorted(published.sessions)
    right.plot(
        xs, [published.sessions[x] for x in xs], marker="s", color=PUBLISHED_COLOUR, label=theirs
    )
    lines_axis(right, layout.along)
    right.set_title("Accuracy by sessions elapsed")
    legend(figure, right)
    figure.suptitle(titled(f"{summary.label} next to published {published.name}", title))
    return save(figure, folder, stem)
