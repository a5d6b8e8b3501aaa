"""The part of the report of a version that sets its runs beside the numbers published
about it (`declared.BesideLayout`): PersonaMem-v2's own, apart from PersonaMem's paper
layout: other questions, other label groups, other published numbers.

Its figure (`<key>`, `beside_figure.py`): the runs beside the published numbers, and
accuracy per value of the layout's group. Its tables (file stems `<key>_*`): the overall
results and the runs (standard errors clustered as the version clusters them), the
graders of open answers, their trials and their agreement, the runs judged against a
label, the runs beside the published numbers (`published.published_table`), accuracy
per label group; then, where retrieval or memory runs are among them, what their
memories did (`ReportContext.retrieval`: `<key>_evidence_use`, `<key>_evidence_bounds`,
`<key>_memory_cost`, figures `<key>_evidence_<n>_<run>`). A run is set beside the
published numbers, never equated with them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.declared import BesideLayout, Published
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.graded_tables import SELF_GRADED, grader_tables
from inspect_personamem.report.published import published_table
from inspect_personamem.report.sections import ReportContext, Section, titled
from inspect_personamem.report.tables import Cell, Table, overall_table, runs_table


def beside_sections(
    version: DatasetVersion[Any],
    layout: BesideLayout,
    published: Published,
    summaries: Sequence[RunSummary],
    report: ReportContext,
) -> list[Section]:
    """The version's figure and tables, each titled after it."""
    from inspect_personamem.report.beside_figure import beside_figure  # matplotlib

    by = next(g for g in version.groups if g.key == layout.by)
    colours = report.figures.palette(summaries)
    figure = report.figure(
        f"{version.name}: runs beside the published numbers (upper bounds aside), and "
        f"accuracy per {by.title}",
        beside_figure(version, by, published, summaries, colours, report.folder, report.title),
    )
    prefix = f"{version.key}_"
    judged = [s for s in summaries if s.run.judged]
    tables: list[Section] = [
        overall_table(summaries, version, f"{prefix}overall"),
        *grader_tables(summaries, prefix),
        *([judge_table(judged, prefix)] if judged else []),
        runs_table(summaries, f"{prefix}runs"),
        published_table(summaries, version, published),
        groups_table(summaries, version),
        *report.retrieval(version, summaries, prefix),
    ]
    return [figure, *(titled(table, version) for table in tables)]


def judge_table(summaries: Sequence[RunSummary], prefix: str) -> Table:
    """One row per run judged against a label: its mean score, what the judge could not
    score, and how well it told the label apart."""
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            "yes" if s.run.self_graded else "no",
            s.overall.accuracy,
            s.statuses.get("judge_unread", 0.0) if s.overall.n else math.nan,
            s.statuses.get("empty_reply", 0.0) if s.overall.n else math.nan,
            s.calibration.questions,
            s.calibration.separation,
        )
        for s in summaries
    )
    return Table(
        f"{prefix}judges",
        "Open answers judged against the preference label",
        "Runs with `-T judge=preference`: the authors' judge prompts, through the grader "
        "role (or with `-T grader=self` the model under test, as the authors run it), "
        "score each reply from 0 to 1 against the `preference` label. "
        f"`self-judged`: {SELF_GRADED}. "
        "`judge unread share`: replies whose score the judge's answer did not give "
        "(scored 0, as the authors score them); `empty reply share`: empty replies "
        "(scored 0; the authors leave them unjudged). Calibration, recomputed from the "
        "calibrated questions: shown each of the four candidates as the reply, the share "
        "of questions on which it scored the correct one above the three others "
        "(`separates`: 1.0 for a judge that tells the user's preference apart).",
        (
            "run",
            "self-judged",
            "mean score",
            "judge unread share",
            "empty reply share",
            "calibrated questions",
            "separates",
        ),  # fmt: skip
        rows,
    )


def groups_table(summaries: Sequence[RunSummary], version: DatasetVersion[Any]) -> Table:
    """Accuracy per value of each label group, one row per run, group and value."""
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (s.label, key, value, e.n, e.contexts, e.accuracy, e.low, e.high)
        for s in summaries
        for key in (group.key for group in version.groups)
        for value, e in s.groups.get(key, {}).items()
    )
    return Table(
        f"{version.key}_groups",
        "Accuracy per label group",
        "Each of PersonaMem-v2's label groups (`pref_type`, `conversation_scenario`, "
        "`topic_query`, `who`, `updated`, `sensitive_info`, and `distance_bin`: the tokens "
        "between the related snippet and the query at the run's length), each value's "
        "accuracy (a judged run's mean score) with its 95% interval clustered by persona, "
        "as `inspect view` names them `<group>_<value>`. The labels were never sent to "
        "the model.",
        ("run", "group", "value", "questions", "personas", "accuracy", "ci95 low", "ci95 high"),
        rows,
    )
