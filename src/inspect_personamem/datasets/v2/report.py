"""PersonaMem-v2's part of the report (`DatasetVersion.report_sections`), apart from
PersonaMem's: other questions, other label groups, other published numbers.

Its figure (`v2`, `figure.py`): the runs beside the published numbers, and accuracy per
preference type. Its tables (file stems `v2_*`): the overall results and the runs as for
PersonaMem (standard errors clustered by persona), the graders of open answers
(`judge=options`), their trials and their agreement, the authors' preference judge
(`judge=preference`), accuracy per label group, and the runs beside the numbers
published about PersonaMem-v2: the paper's (a range for frontier LLMs) and the vendors'
own, labelled self-reported with how their harnesses deviate (`published.published_v2`);
then, where retrieval or memory runs are among them, what their memories did
(`ReportContext.retrieval`: `v2_evidence_use`, `v2_evidence_bounds`, `v2_memory_cost`,
figures `v2_evidence_<n>_<run>`). A run is set beside them, never equated with them: the
authors' option order cannot be repeated, the vendors' harnesses differ from the
authors' protocol and from each other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.v2.published import PublishedV2, paper_range, published_v2
from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.graded_tables import SELF_GRADED, grader_tables
from inspect_personamem.report.sections import ReportContext, Section, titled
from inspect_personamem.report.tables import Cell, Table, overall_table, runs_table

PREFIX = "v2_"
"""The file stem prefix of PersonaMem-v2's tables and figures."""


TITLE = "PersonaMem-v2"
"""What every PersonaMem-v2 table's and figure's title begins with."""


def report_sections(
    version: DatasetVersion[Any], summaries: Sequence[RunSummary], report: ReportContext
) -> list[Section]:
    """PersonaMem-v2's figure and tables, after PersonaMem's."""
    from inspect_personamem.datasets.v2.figure import v2_figure  # matplotlib

    colours = report.figures.palette(summaries)
    figure = report.figure(
        f"{TITLE}: runs beside the published numbers (upper bounds aside), and accuracy "
        "per preference type",
        v2_figure(summaries, colours, report.folder, report.title),
    )
    retrieval = report.retrieval(version, summaries, PREFIX)
    return [figure, *v2_tables(summaries, version), *(titled(s, version) for s in retrieval)]


def v2_tables(summaries: Sequence[RunSummary], version: DatasetVersion[Any]) -> list[Table]:
    """PersonaMem-v2's tables, in the order the page shows them."""
    judged = [s for s in summaries if s.run.judged]
    tables = [
        overall_table(summaries, version, f"{PREFIX}overall"),
        *grader_tables(summaries, PREFIX),
        *([judge_table(judged)] if judged else []),
        runs_table(summaries, f"{PREFIX}runs"),
        published_table(summaries),
        groups_table(summaries, version),
    ]
    return [replace(table, title=f"{TITLE}: {table.title}") for table in tables]


def judge_table(summaries: Sequence[RunSummary]) -> Table:
    """One row per run judged against the preference label: its mean score, what the
    judge could not score, and how well it told the preference apart."""
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
        f"{PREFIX}judges",
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
        f"{PREFIX}groups",
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


def placement(summary: RunSummary) -> str:
    """Where a run's point estimate falls against the paper's range for frontier LLMs."""
    if not summary.overall.n:
        return "no question scored"
    if summary.run.judged:
        return "not comparable: a mean judge score"
    if summary.run.synthetic:
        return "not comparable: synthetic data"
    paper = paper_range()
    value = summary.overall.accuracy
    side = "below" if value < paper.low else "above" if value > paper.high else "inside"
    return f"{side} {paper.shown}"


def _deviations(summary: RunSummary) -> str:
    """How a run differs from the authors' protocol: its settings off the defaults (the
    defaults are the authors' protocol but for the seeded option order)."""
    run = summary.run
    changed = run.changed_settings
    if run.judged and not run.self_graded:
        changed.append("judged by the grader role (the authors judge with the model itself)")
    seeded = "options in a seeded order (the authors' cannot be repeated)"
    if changed:
        return f"{', '.join(changed)}; {seeded}"
    return f"none but the order: the authors' messages and answer rule, {seeded}"


def _published_row(p: PublishedV2) -> tuple[Cell, ...]:
    single = p.low == p.high
    return (
        p.kind, p.system, p.model or "not stated", p.low if single else math.nan,
        math.nan if single else p.low, math.nan if single else p.high, "", p.source,
        p.deviations,
    )  # fmt: skip


def published_table(summaries: Sequence[RunSummary]) -> Table:
    """The runs beside every number published about PersonaMem-v2, upper bounds
    (`Run.upper_bound`: no method's result) aside."""
    runs: tuple[tuple[Cell, ...], ...] = tuple(
        (
            "this report" + (", mean judge score" if s.run.judged else ""),
            s.label,
            s.run.model,
            s.overall.accuracy,
            s.overall.low,
            s.overall.high,
            placement(s),
            f"Inspect log {Path(s.run.location).name}",
            _deviations(s),
        )  # fmt: skip
        for s in summaries
        if not s.run.upper_bound
    )
    paper = paper_range()
    return Table(
        f"{PREFIX}published",
        "Beside the published PersonaMem-v2 numbers",
        "Set beside, not equated: the authors' harness is not public and their option "
        "order cannot be repeated; `self-reported` numbers come from the vendors' own "
        "harnesses, which differ from the authors' protocol and from each other (the "
        "last column: what is known of how). The paper gives frontier LLMs a range, "
        f"{paper.shown} (`low`, `high`), without naming the length or setting; a run's "
        "`low` and `high` are its 95% interval. An upper bound (`history=evidence`: shown "
        "only each question's evidence) is no method's result and is not listed.",
        (
            "kind",
            "system or run",
            "model",
            "accuracy",
            "low",
            "high",
            "against the paper's range",
            "source",
            "deviations from the authors' protocol",
        ),  # fmt: skip
        runs + tuple(_published_row(p) for p in published_v2()),
    )
