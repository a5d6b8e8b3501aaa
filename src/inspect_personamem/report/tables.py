"""The report's tables, each written as Markdown (rounded) and CSV (full precision).

Every number comes from `RunSummary` (recomputed from the per-question scores);
tables only arrange them.
"""

from __future__ import annotations

import csv
import html
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion, Group
from inspect_personamem.report.accuracy import (
    NO_ESTIMATE,
    Accuracy,
    RunSummary,
    title_of,
)
from inspect_personamem.report.check import check
from inspect_personamem.report.differences import (
    Difference,
    differences,
    informative,
    known_groups,
)
from inspect_personamem.report.labels import TIME_FORMAT, model_labels
from inspect_personamem.report.pairs import FloorPair, GainPair, MethodGroup
from inspect_personamem.report.read.runs import Run
from inspect_personamem.scoring.metrics import group_order

Cell = str | int | float | None


@dataclass(frozen=True)
class Table:
    name: str
    """File stem: `tables/<name>.md` and `tables/<name>.csv`."""
    title: str
    note: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def markdown(self) -> str:
        lines = [f"## {self.title}", "", self.note, ""] if self.note else [f"## {self.title}", ""]
        lines.append("| " + " | ".join(map(markdown_cell, self.columns)) + " |")
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        for row in self.rows:
            lines.append("| " + " | ".join(markdown_cell(format_cell(c)) for c in row) + " |")
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow(
                "" if cell is None or (isinstance(cell, float) and math.isnan(cell)) else cell
                for cell in row
            )
        return out.getvalue()


def markdown_cell(text: str) -> str:
    """Text as one Markdown table cell: HTML escaped (a topic or model name from a log
    must not become markup) and `|` escaped (it would end the cell)."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def format_cell(cell: Cell) -> str:
    """A cell as people read it: floats to three decimals, missing values as a dash."""
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return "–"
    if isinstance(cell, float):
        return f"{cell:.3f}"
    return str(cell)


UPPER_BOUND_NOTE = (
    " A run labelled `(upper bound)` was shown only each question's evidence "
    "(`history=evidence`, located by its label): what a perfect retriever would hand "
    "over, a ceiling for the retrieval and memory runs of its model, not a method's "
    "result, and never compared with published numbers."
)
"""What the overall table says where an upper bound (`Run.upper_bound`) is among its runs."""


def overall_table(
    summaries: Sequence[RunSummary], version: DatasetVersion[Any], name: str = "overall"
) -> Table:
    """The results of a version's runs, one row per run; what was run is in
    `runs_table` (one table of both would be wider than a page). `name` is the table's
    file stem; the version declares what the errors are clustered by, in words, and
    what it adds about judged runs (`Reported.cluster_words`, `judged_note`)."""
    clustered_by = version.reported.cluster_words or f"`{version.cluster}`"
    columns = (
        "run", "accuracy", "ci95 low", "ci95 high", "stderr (clustered)", "questions scored",
        "questions planned", "contexts", "errored samples", "unscored samples",
        "unparsed share", "epochs", "status", "check against Inspect",
    )  # fmt: skip
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            s.overall.accuracy,
            s.overall.low,
            s.overall.high,
            s.overall.shown_stderr,
            s.overall.n,
            s.run.planned,
            s.overall.contexts,
            s.run.errors,
            s.run.unanswered + s.run.unscored_total,
            s.unparsed,
            s.run.epochs,
            s.run.status,
            check(s).short,
        )  # fmt: skip
        for s in summaries
    )
    return Table(
        name,
        "Overall accuracy",
        "Question-weighted accuracy with a 95% interval: Wilson's score interval over the "
        "effective number of questions (the questions over the design effect of sharing "
        "a history) with t(contexts−1), Inspect's `ci_wilson`; it stays inside [0, 1] "
        "and is not a point at 0 or 1 (where a question's score lies outside [0, 1], as a "
        "graded NDCG can, the interval is ± t(contexts−1) × the clustered error instead). "
        "The standard error and interval are clustered by "
        f"{clustered_by}: `contexts` counts them. With several epochs each "
        "question counts once, "
        "with its mean over epochs. `unscored samples`: stopped by an Inspect limit "
        "before the model replied, or left unscored by the scorer itself (a judge not "
        "built, a judgement that could not be read); the notes give each count and reason. "
        "Inspect's metrics skip them too, and none counts as 0. `unparsed "
        "share`: answers (all epochs) with no single option letter; of open answers, "
        "those whose grader named no candidate or gave no verdict that could be read "
        "(apart in `graders`). The last column "
        "compares every recomputed number with the metrics Inspect stored in the log (the "
        "notes above give the details)."
        + (UPPER_BOUND_NOTE if any(s.run.upper_bound for s in summaries) else "")
        + version.reported.judged_note
        + (f" {below}" if (below := below_zero(summaries)) else ""),
        columns,
        rows,
    )


def joined_note(summaries: Sequence[RunSummary]) -> str:
    """Where a run's rows are fewer than its scored questions (a dataset that counts
    several questions as one row: PersonaMem-v3's lifecycle probes, a pre and a post
    making one row), what `questions scored` counts, with each such count of questions
    (the one Inspect's viewer shows) beside its rows, said once, where the summary shows
    the count; empty where every row is one question."""
    alike: dict[tuple[int, int, int], int] = {}
    for s in summaries:
        if s.run.scored_questions != s.overall.n:
            key = (s.run.scored_questions, s.overall.n, len(s.run.parts_left))
            alike[key] = alike.get(key, 0) + 1
    if not alike:
        return ""
    counts = "; ".join(
        f"{questions} questions scored, as Inspect's viewer counts them, make {rows} rows"
        + (f", {left} probes whose partner was not scored counting nowhere" if left else "")
        + f" ({runs} run{'s' if runs > 1 else ''})"
        for (questions, rows, left), runs in alike.items()
    )
    return (
        "`questions scored` counts rows, as the headline does: a lifecycle probe's pre and "
        f"post questions make one row (PersonaMem-v3): {counts}. "
    )


RUNS_COLUMNS = (
    "run", "model", "split", "task version", "started (UTC)", "data", "data checked", "settings",
)  # fmt: skip


def runs_table(summaries: Sequence[RunSummary], name: str = "runs") -> Table:
    """What each run was: model, split, task version, start, and its settings; `name`
    is the table's file stem."""
    models = model_labels([s.run for s in summaries])
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            model,
            s.run.split,
            s.run.version,
            s.run.created.strftime(TIME_FORMAT),
            _data(s.run),
            s.run.data_checked,
            ", ".join(s.run.changed_settings) or "all defaults",
        )
        for s, model in zip(summaries, models, strict=True)
    )
    return Table(
        name,
        "The runs",
        "Model: its name, with the model arguments (`-M`) in which runs of that name "
        "differ. Data: whether the question file was the released one, as the task "
        "recorded it (`synthetic` for generated data; the summary says why not; `unknown` "
        "for a log made before the task recorded it); data checked: which files the task "
        "verified against the release, and how, where the log says. Settings: the task "
        "arguments that change what is scored, where they differ from the task's defaults "
        "(a log without an argument ran with its default).",
        RUNS_COLUMNS,
        rows,
    )


def _data(run: Run) -> str:
    """A run's data in a word or two: `released`, `not released`, `synthetic`, `unknown`."""
    if run.data_release is None:
        return "unknown"
    return "synthetic" if run.synthetic else "not released" if run.unreleased else "released"


def values_of(summaries: Sequence[RunSummary], group: Group) -> list[str]:
    """The values of `group` a table or figure shows: every known one (`Group.values`,
    in order), then the others any run's questions have, in `group_order`."""
    known = tuple(group.values)
    present = {value for s in summaries for value in s.groups.get(group.key, {})}
    return [*known, *sorted(present - set(known), key=lambda value: group_order(value, known))]


TRANSPOSE_AT = 12
"""A group of more values than this is shown with a row per value and a column per
run (PersonaMem-v3's 31 task types would make a table thousands of pixels wide): the
table's width is bounded by its number of runs."""


def shown_values(summaries: Sequence[RunSummary], group: Group) -> list[str]:
    """The values of `group` some run has a question of (`values_of`, in its order): a
    table or figure shows no value that is empty for every run."""
    return [
        v
        for v in values_of(summaries, group)
        if any(v in s.groups.get(group.key, {}) for s in summaries)
    ]


BELOW_ZERO = (
    "Some rows scored below 0 (a graded NDCG@5 with hard negatives ranked first, in a log "
    "made before the scorer floored it at 0, as the authors clamp it to [0, 1]: "
    "EVAL.md@8e2a111f), so a cell is a mean score, not an accuracy: "
)
"""What a group table opens its note with where any of its rows scored below 0."""


def below_zero(summaries: Sequence[RunSummary], group: Group | None = None) -> str:
    """Where any scored row of `summaries` is below 0, per run and value of `group`
    (all its rows where None) holding such rows: its mean, how many rows are below 0,
    and what the authors' scale makes of it (each row clamped at 0, then the mean);
    empty where none is below 0."""
    said = []
    for s in summaries:
        by: dict[str, list[float]] = {}
        for sample in s.run.samples:
            by.setdefault(sample.groups[group.key] if group else "all", []).append(sample.value)
        for value, scores in by.items():
            if any(score < 0 for score in scores):
                where = f" · {title_of(group, value)}" if group else ""
                said.append(
                    f"{s.label}{where}: mean {math.fsum(scores) / len(scores):.3f}, "
                    f"{sum(score < 0 for score in scores)} of {len(scores)} rows below 0, "
                    f"{math.fsum(max(0.0, x) for x in scores) / len(scores):.3f} on the "
                    "authors' scale"
                )
    return f"{BELOW_ZERO}{'; '.join(said)}." if said else ""


def group_table(
    summaries: Sequence[RunSummary], group: Group, name: str, title: str, note: str = ""
) -> Table:
    """One row per run, one column per value of `group` some run has (`shown_values`;
    the known values no run has named in the note); for a group averaged over its values
    (`Group.mean_of_values`) the macro average and the questions scored after them. A
    group of more than `TRANSPOSE_AT` values is transposed: a row per value (then the
    macro average and the questions), a column per run."""
    values = shown_values(summaries, group)
    absent = [title_of(group, v) for v in group.values if v not in values]
    if absent:
        note = f"{note} No run has a question of: {', '.join(absent)}.".strip()
    below = below_zero(summaries, group)
    if below:
        title = title.replace("Accuracy", "Mean score", 1)
        note = f"{below} {note}".strip()
    mean = ("macro average", "questions") if group.mean_of_values else ()
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            *(s.groups.get(group.key, {}).get(value, NO_ESTIMATE).accuracy for value in values),
            *((s.mean_of(group), s.overall.n) if group.mean_of_values else ()),
        )
        for s in summaries
    )
    columns = ("run", *(title_of(group, value) for value in values), *mean)
    if len(values) > TRANSPOSE_AT:
        columns, rows = (
            (group.title, *(s.label for s in summaries)),
            tuple((heading, *(row[i] for row in rows)) for i, heading in enumerate(columns[1:], 1)),
        )
    return Table(name, title, note, columns, rows)


def estimates_table(
    summaries: Sequence[RunSummary], groups: Sequence[Group], name: str = "estimates"
) -> Table:
    """Every estimate with its interval, one per line: overall, then per value of each
    of `groups` (its family the group's metric name): the data behind the figures."""
    rows: list[tuple[Cell, ...]] = []
    for s in summaries:
        families: list[tuple[str, dict[str, Accuracy]]] = [
            ("overall", {"all": s.overall}),
            *((group.metric, s.groups.get(group.key, {})) for group in groups),
        ]
        for family, estimates in families:
            for group, e in estimates.items():
                rows.append(
                    (
                        s.label,
                        family,
                        group,
                        e.n,
                        e.contexts,
                        e.accuracy,
                        e.shown_stderr,
                        e.low,
                        e.high,
                    )
                )
    return Table(
        name,
        "Every estimate with its 95% interval",
        "Intervals: cluster-adjusted Wilson (see `overall`). Standard errors and intervals "
        "need two or more contexts; with fewer they are left blank.",
        (
            "run",
            "family",
            "group",
            "questions",
            "contexts",
            "accuracy",
            "stderr (clustered)",
            "ci95 low",
            "ci95 high",
        ),  # fmt: skip
        tuple(rows),
    )


DIFFERENCE_COLUMNS = (
    "measure", "questions compared", "contexts", "difference", "stderr (clustered)",
    "ci95 low", "ci95 high", "distinguishable from 0",
)  # fmt: skip
"""The columns of one paired difference (`differences.Difference`)."""

DIFFERENCE_NOTE = (
    "Paired over the questions both runs scored: each question's score in one run minus "
    "its score in the other, averaged (the macro average: the mean of the categories' "
    "mean differences), with a standard error clustered by shared context and a 95% "
    "interval of ± t(contexts−1) × that error. `distinguishable from 0`: `yes` where the "
    "interval excludes 0; a `no` is a difference these questions cannot tell from none. "
    "`questions compared`: how many questions of the measure both runs scored; where the "
    "runs share fewer than either scored, the overall row gives each run's own count "
    "(`6 of 24 and 12`): they asked other questions (`--limit N` takes the first N in "
    "each run's order, which differs between `answer=logprob` and `answer=choice`) or "
    "one was cut short, and the difference is over the shared ones only."
)


def paired_questions(a: RunSummary, b: RunSummary) -> int | str:
    """How many questions two runs (recomputed over those they share) are paired on,
    with each run's own count where either scored more: `6 of 24 and 12`."""
    n = len({q.id for q in a.run.samples} & {q.id for q in b.run.samples})
    return n if n == a.scored == b.scored else f"{n} of {a.scored} and {b.scored}"


def difference_cells(measure: str, d: Difference, a: RunSummary, b: RunSummary) -> tuple[Cell, ...]:
    """The cells of `a` against `b` on `measure`, `DIFFERENCE_COLUMNS` after the measure;
    the overall row's questions compared are `paired_questions`."""
    compared = paired_questions(a, b) if measure == "overall" else d.n
    return (compared, d.contexts, d.difference, d.stderr, d.low, d.high, d.distinguishable)


DifferenceRow = tuple[tuple[Cell, ...], str, Difference]
"""A row of a table of paired differences, with its measure and difference (what
`informative` reads)."""


def _difference_rows(
    first: tuple[Cell, ...], a: RunSummary, b: RunSummary, by_category: bool = True
) -> list[DifferenceRow]:
    """One row per measure of `a` against `b` (overall, macro average, and by default
    each known value of the version's `mean_group`, each question type), each after the
    cells `first`."""
    group = a.run.entry.mean_group
    groups = known_groups(group) if by_category and group is not None else {}
    return [
        ((*first, measure, *difference_cells(measure, d, a, b)), measure, d)
        for measure, d in differences(a, b, groups)
    ]


def difference_table(
    name: str, title: str, note: str, columns: tuple[str, ...], rows: Sequence[DifferenceRow]
) -> Table:
    """A table of paired differences: the rows worth showing (`informative`), the note
    opening with how many were left out (its first sentence, shown on the page)."""
    kept, left_out = informative(rows)
    return Table(name, title, f"{left_out} {note}".strip(), columns, kept)


def _per_value(summaries: Sequence[RunSummary]) -> str:
    """`, macro average and per question type`: the measures beside `overall` of the
    runs' version (`measures`, `_difference_rows`)."""
    group = summaries[0].run.entry.mean_group if summaries else None
    return f", macro average and per {group.title}" if group is not None else ""


def gain_table(pairs: Sequence[GainPair]) -> Table:
    rows = [
        row
        for p in pairs
        for row in _difference_rows((p.run.label, p.baseline.label), p.run, p.baseline)
    ]
    return difference_table(
        "gain",
        "Gain over no history, for every method",
        "Accuracy a run gains over the run of the same model (name and model "
        "arguments), split and other settings without the history (`history=none`): of "
        "the same method (of open answers, with the same grader), or for `rag` and "
        f"`memory` of the official prompt; overall{_per_value([p.run for p in pairs])}. "
        "Where a kind of run was made several "
        f"times, the latest complete one (else the latest). {DIFFERENCE_NOTE}",
        ("run", "baseline (no history)", *DIFFERENCE_COLUMNS),
        tuple(rows),
    )


def floor_table(pairs: Sequence[FloorPair]) -> Table:
    rows = [
        row for p in pairs for row in _difference_rows((p.run.label, p.floor.label), p.run, p.floor)
    ]
    return difference_table(
        "floor",
        "Above the shortcut floor?",
        "Each run against the most accurate model-free baseline of its split "
        "(`--model personamem/floor`: the longest option, the option closest to the "
        "question or to the history, or a random one), "
        f"overall{_per_value([p.run for p in pairs])}. A run is above the floor only "
        "where the difference is "
        f"distinguishable from 0 and positive. {DIFFERENCE_NOTE}",
        ("run", "floor", *DIFFERENCE_COLUMNS),
        tuple(rows),
    )


def methods_table(groups: Sequence[MethodGroup], by: Group) -> Table:
    """One row per run of a method group, one column per known value of `by` (the
    paper's Figure 5 in numbers: per question type), its mean and overall."""
    values = list(by.values)
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            g.title,
            label,
            *(s.groups.get(by.key, {}).get(k, NO_ESTIMATE).accuracy for k in values),
            s.mean_of(by),
            s.overall.accuracy,
        )
        for g in groups
        for label, s in g.runs
    )
    return Table(
        "methods",
        f"Methods side by side per {by.title} (the paper's Figure 5)",
        "Runs of one model (name and model arguments), split and setting that differ only "
        "in how they answered, each over the questions all of them scored. Where a kind of "
        "run was made several times, the latest complete one (else the latest). Their "
        "paired differences, with the questions compared: `method_differences` and `gain`.",
        (
            "runs of",
            "method",
            *by.values.values(),
            "macro average",
            "overall",
        ),  # fmt: skip
        rows,
    )


def method_differences_table(groups: Sequence[MethodGroup]) -> Table:
    """Every two methods of a group against each other, the later (`FIRST_METHODS`
    order) minus the earlier, overall and macro average."""
    rows = [
        row
        for g in groups
        for i, (label_b, b) in enumerate(g.runs)
        for label_a, a in g.runs[i + 1 :]
        for row in _difference_rows((g.title, label_a, label_b), a, b, by_category=False)
    ]
    return difference_table(
        "method_differences",
        "Methods against each other",
        "For the runs of the methods table, each method against each one before it in "
        f"that table, overall and macro average{_per_table(groups)}. "
        f"{DIFFERENCE_NOTE}",
        ("runs of", "method", "against", *DIFFERENCE_COLUMNS),
        tuple(rows),
    )


def _per_table(groups: Sequence[MethodGroup]) -> str:
    """` (per question type: the gain table)`, where the runs' version has a
    `mean_group`."""
    runs = [s for g in groups for _, s in g.runs]
    group = runs[0].run.entry.mean_group if runs else None
    return f" (per {group.title}: the gain table)" if group is not None else ""
