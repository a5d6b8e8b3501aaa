"""The part of the report of a version that follows its paper (`declared.PaperLayout`,
PersonaMem's): the paper's figures and tables, and the runs next to the authors'
published numbers, which the version declares.

Tables (file stems): overall, graders, grader_trials, grader_agreement, runs,
categories, methods, method_differences, gain, floor, choice_open, cost, evidence_use,
evidence_bounds, memory_cost, sessions, published, published_methods, topics,
estimates (the graders' three (`graded_tables.grader_tables`), methods, method_differences,
gain, floor, choice_open, the retrieval runs' three (`ReportContext.retrieval`) and the
published ones only when they apply). Figures: categories, methods_<n>_<model>,
choice_open_<n>_<run>, cost, evidence_<n>_<run>, sessions, published_<n>_<run>. The
groups they are drawn by are the entry's, as the layout names them: question type
(PersonaMem's `category`, averaged: the macro average), topic, sessions elapsed, and
sessions elapsed in bins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_personamem.cost.prices import load_prices
from inspect_personamem.datasets.base import DatasetVersion, Group
from inspect_personamem.datasets.declared import PaperLayout, PublishedMethod, PublishedModel
from inspect_personamem.report.accuracy import NO_ESTIMATE, RunSummary
from inspect_personamem.report.axes import axes_label
from inspect_personamem.report.costs import run_costs
from inspect_personamem.report.costs_tables import cost_table
from inspect_personamem.report.graded import choice_open_pairs
from inspect_personamem.report.graded_tables import choice_open_table, grader_tables
from inspect_personamem.report.pairs import floor_pairs, gain_pairs, method_groups, not_above_floor
from inspect_personamem.report.sections import Inclusion, ReportContext, Section
from inspect_personamem.report.tables import (
    Cell,
    Table,
    estimates_table,
    floor_table,
    gain_table,
    group_table,
    method_differences_table,
    methods_table,
    overall_table,
    runs_table,
)


def paper_sections(
    version: DatasetVersion[Any],
    layout: PaperLayout,
    summaries: Sequence[RunSummary],
    report: ReportContext,
) -> list[Section]:
    """The paper's figures and tables; `report.notes` gets what the comparisons say."""
    groups = {group.key: group for group in version.groups}
    category, topic = groups[layout.question_type], groups[layout.topic]
    sessions, bins = groups[layout.sessions], groups[layout.sessions_bins]
    along, split = layout.along, layout.split
    figures, figure_dir, title = report.figures, report.folder, report.title
    pairs = gain_pairs(summaries)
    floors = floor_pairs(summaries)
    report.notes.extend(not_above_floor(floors))
    choice_open = choice_open_pairs(summaries)
    methods = method_groups(summaries)
    compared = [s for s in summaries if s.overall.n]
    matches = published_matches(
        layout, compared, report.name_overrides, report.notes, report.include
    )
    method_matches = published_method_matches(
        layout, compared, report.name_overrides, report.include
    )
    colours = figures.palette(summaries)
    category_figure = report.figure(
        "Accuracy per question type (the paper's Figure 3)",
        figures.group_figure(summaries, category, colours, figure_dir, "categories", title),
    )
    prices = load_prices()
    costs = run_costs(compared, prices)
    cost_figure = report.figure(
        "Accuracy against input tokens per question, no-history runs as reference lines",
        figures.cost_figure(costs, colours, figure_dir, title),
    )
    sessions_figure = report.figure(
        "Accuracy by sessions elapsed (the paper's Figure 4)",
        figures.lines_figure(summaries, sessions, along, colours, figure_dir, "sessions", title),
    )
    method_figures = [
        report.figure(
            f"Methods per question type: {group.title} (the paper's Figure 5)",
            figures.methods_figure(
                group,
                category,
                colours,
                figure_dir,
                f"methods_{i}_{figures.slug(group.title)}",
                title,
            ),
        )
        for i, group in enumerate(methods, start=1)
    ]
    choice_open_figures = [
        report.figure(
            f"Chosen against open answers: {pair.open.label} (the paper's Figure 6)",
            figures.choice_open_figure(
                pair,
                category,
                (bins, "sessions elapsed", along),
                colours,
                figure_dir,
                f"choice_open_{i}_{figures.slug(pair.open.label)}",
                title,
            ),
        )
        for i, pair in enumerate(choice_open, start=1)
    ]
    from inspect_personamem.report.paper_figures import published_figure  # matplotlib

    published_figures = [
        report.figure(
            f"{s.label} next to the published {split} numbers of {published.name}",
            published_figure(
                s,
                published,
                layout,
                (category, sessions),
                colours,
                figure_dir,
                f"published_{i}_{figures.slug(s.label)}",
                title,
            ),
        )
        for i, (s, published) in enumerate(matches, start=1)
    ]
    graders = grader_tables(summaries)
    gain = [gain_table(pairs)] if pairs else []
    floor = [floor_table(floors)] if floors else []
    method_tables = (
        [methods_table(methods, category), method_differences_table(methods)] if methods else []
    )
    choice_open_tables = (
        [
            choice_open_table(
                choice_open,
                category,
                bins,
                "sessions ",
                "overall, macro average, per question type and per bin of sessions elapsed "
                "(`distance_bin`)",
            )
        ]
        if choice_open
        else []
    )
    published_by_method = [published_methods_table(method_matches)] if method_matches else []
    published = [published_table(matches, category, split)] if matches else []
    return [
        overall_table(summaries, version), *graders, runs_table(summaries), category_figure,
        group_table(
            summaries, category, "categories", "Accuracy per question type (the paper's Figure 3)",
            "Macro average: the mean of the categories present, each weighing the same.",
        ),
        *method_figures, *method_tables, *gain, *floor, *choice_open_figures,
        *choice_open_tables, cost_figure, cost_table(costs, pairs, prices),
        *report.retrieval(version, summaries, ""), sessions_figure,
        group_table(
            summaries, sessions, "sessions",
            "Accuracy by sessions elapsed since the relevant preference (the paper's Figure 4)",
            "Columns: `distance_to_ref_in_blocks`.",
        ),
        *published_figures, *published, *published_by_method,
        group_table(summaries, topic, "topics", "Accuracy per topic"),
        estimates_table(summaries, (category, topic, sessions)),
    ]  # fmt: skip


def published_matches(
    layout: PaperLayout,
    summaries: Sequence[RunSummary],
    overrides: Mapping[str, str],
    notes: list[str],
    include: Inclusion,
) -> list[tuple[RunSummary, PublishedModel]]:
    """Runs compared with published numbers; notes say why the others are not (where
    the summary does not: `Inclusion.leaves_out`).

    The published numbers are full-history runs of the official prompt over the whole
    released split, so only runs with `history=full` and `answer=choice` are compared,
    and runs over a subset of the split or on other data only as `include` says.
    """
    models = layout.models()
    matches = []
    unmapped: set[str] = set()
    for s in summaries:
        name = layout.published_name(s.run.model, overrides)
        if name is None:
            unmapped.add(s.run.model)
        elif s.run.split != layout.split:
            notes.append(
                f"{s.label}: ran on the {s.run.split} split; the published numbers are "
                f"for {layout.split}, so it is not compared with {name}"
            )
        elif (s.run.settings["history"], s.run.settings["answer"]) != ("full", "choice"):
            notes.append(
                f"{s.label}: history={s.run.settings['history']}, "
                f"answer={s.run.settings['answer']}; the published numbers are full-history "
                f"runs of the official prompt, so it is not compared with {name}"
            )
        elif include.leaves_out(s):
            pass
        else:
            matches.append((s, models[name]))
            if s.overall.n < s.run.planned:
                notes.append(
                    f"{s.label}: compared with {name} on the {s.overall.n} of "
                    f"{s.run.planned} questions it scored (a partial run)"
                )
    if unmapped:
        notes.append(
            f"no published name for {', '.join(sorted(unmapped))}: add "
            "--published-name MODEL=NAME to compare (published names: "
            f"{', '.join(models)}; {len(layout.default_names)} Inspect names are mapped by default)"
        )
    return matches


def published_method_matches(
    layout: PaperLayout,
    summaries: Sequence[RunSummary],
    overrides: Mapping[str, str],
    include: Inclusion,
) -> list[tuple[RunSummary, PublishedMethod]]:
    """Runs next to the published number of their model, split and method, if any."""
    matches: list[tuple[RunSummary, PublishedMethod]] = []
    for s in summaries:
        name = layout.published_name(s.run.model, overrides)
        method = layout.method_of(s.run.settings)
        published = [
            p
            for p in layout.methods()
            if (p.model, p.split, p.method) == (name, s.run.split, method)
        ]
        if published and name and not include.leaves_out(s):
            matches.extend((s, p) for p in published)
    return matches


def published_table(
    matches: Sequence[tuple[RunSummary, PublishedModel]], category: Group, split: str
) -> Table:
    """One row per run and measure (overall, each question type): this run, the
    published number and the difference."""
    rows: list[tuple[Cell, ...]] = []
    for s, published in matches:
        measures = [("overall", s.overall.accuracy, published.overall)] + [
            (
                title,
                s.groups[category.key].get(key, NO_ESTIMATE).accuracy,
                published.categories.get(key, float("nan")),
            )
            for key, title in category.values.items()
        ]
        rows.extend(
            (s.label, published.name, measure, ours, theirs, ours - theirs)
            for measure, ours, theirs in measures
        )
    return Table(
        "published",
        f"Next to the published {split} numbers",
        f"Only runs of the {split} split whose model maps to a published name "
        "(`--published-name MODEL=NAME`). Published numbers: the PersonaMem authors' "
        "website (Jiang et al., COLM 2025). They come without per-question scores, so "
        "the difference is not paired and has no interval: read it against this run's "
        "interval (`estimates`).",
        ("run", "published model", "measure", "this run", "published", "difference"),
        tuple(rows),
    )


def published_methods_table(matches: Sequence[tuple[RunSummary, PublishedMethod]]) -> Table:
    """One row per run next to a number the authors give as text for its method."""
    columns = (
        "run", "method", "published model", "split", "measure", "published", "this run",
        "difference", "source",
    )  # fmt: skip
    rows: list[tuple[Cell, ...]] = []
    for s, published in matches:
        ours = s.macro if published.measure == "macro" else s.overall.accuracy
        rows.append(
            (
                s.label,
                axes_label(s.run.settings, s.run.entry),
                published.model,
                published.split,
                published.measure,
                published.accuracy,
                ours,
                ours - published.accuracy,
                published.source,
            )  # fmt: skip
        )
    return Table(
        "published_methods",
        "Next to the published memory and retrieval numbers",
        "The numbers the authors give as text (32k with Mem0, macro over question types; "
        "128k with RAG, overall), next to runs of the same model (`--published-name`), "
        "split and method (`rag` whatever the retriever). The authors' RAG and Mem0 runs "
        "used their baseline prompt (`-T memory_prompt=paper`), dense BGE-M3 retrieval "
        "of the top 5 messages and a Mem0 memory rebuilt per question.",
        columns,
        tuple(rows),
    )
