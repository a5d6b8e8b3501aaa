"""The report's tables, each written as Markdown (rounded) and CSV (full precision).

Every number comes from `RunSummary` (recomputed from the per-question scores);
tables only arrange them.
"""

from __future__ import annotations

import csv
import html
import io
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..question_types import CATEGORIES, CATEGORY_TITLES
from .accuracy import NO_ESTIMATE, Accuracy, RunSummary, on_questions
from .check import check
from .labels import TIME_FORMAT
from .logs import SETTING_DEFAULTS
from .published import SPLIT, PublishedModel

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


def overall_table(summaries: Sequence[RunSummary]) -> Table:
    """The results, one row per run; what was run is in `runs_table` (one table of
    both would be wider than a page)."""
    columns = (
        "run", "accuracy", "ci95 low", "ci95 high", "stderr (clustered)", "questions scored",
        "questions planned", "contexts", "errored samples", "unparsed share", "epochs",
        "status", "check against Inspect",
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
            s.unparsed,
            s.run.epochs,
            s.run.status,
            check(s).short,
        )  # fmt: skip
        for s in summaries
    )
    return Table(
        "overall",
        "Overall accuracy",
        "Question-weighted accuracy with a 95% interval: mean ± t(contexts−1) × the "
        "standard error clustered by shared context (Inspect's `stderr`/`ci` with "
        "`cluster='shared_context_id'`). With several epochs each question counts once, "
        "with its mean over epochs. `unparsed share`: answers (all epochs) with no single "
        "option letter. The last column compares every recomputed number with the "
        "metrics Inspect stored in the log (the notes above give the details).",
        columns,
        rows,
    )


def runs_table(summaries: Sequence[RunSummary]) -> Table:
    """What each run was: model, split, task version, start, and its settings."""
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            s.run.model,
            s.run.split,
            s.run.version,
            s.run.created.strftime(TIME_FORMAT),
            ", ".join(
                f"{key}={value}"
                for key, value in s.run.settings.items()
                if value != SETTING_DEFAULTS[key]
            )
            or "all defaults",
        )
        for s in summaries
    )
    return Table(
        "runs",
        "The runs",
        "Settings: the task arguments that change what is scored, where they differ from "
        "the task's defaults (a log without an argument ran with its default).",
        ("run", "model", "split", "task version", "started (UTC)", "settings"),
        rows,
    )


def category_table(summaries: Sequence[RunSummary]) -> Table:
    columns = ("run", *(CATEGORY_TITLES[k] for k in CATEGORIES), "macro average", "questions")
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            *(s.categories.get(k, NO_ESTIMATE).accuracy for k in CATEGORIES),
            s.macro,
            s.overall.n,
        )
        for s in summaries
    )
    return Table(
        "categories",
        "Accuracy per question type (the paper's Figure 3)",
        "Macro average: the mean of the categories present, each weighing the same.",
        columns,
        rows,
    )


def topic_table(summaries: Sequence[RunSummary]) -> Table:
    return _by_group("topics", "Accuracy per topic", "", summaries, lambda s: s.topics)


def sessions_table(summaries: Sequence[RunSummary]) -> Table:
    return _by_group(
        "sessions",
        "Accuracy by sessions elapsed since the relevant preference (the paper's Figure 4)",
        "Columns: `distance_to_ref_in_blocks`.",
        summaries,
        lambda s: s.sessions,
    )


def _by_group(
    name: str,
    title: str,
    note: str,
    summaries: Sequence[RunSummary],
    groups: Callable[[RunSummary], Mapping[Any, Accuracy]],
) -> Table:
    """One row per run, one column per group value (sorted) of any run."""
    keys = sorted({key for s in summaries for key in groups(s)})
    return Table(
        name,
        title,
        note,
        ("run", *(str(key) for key in keys)),
        tuple(
            (s.label, *(groups(s).get(key, NO_ESTIMATE).accuracy for key in keys))
            for s in summaries
        ),
    )


def estimates_table(summaries: Sequence[RunSummary]) -> Table:
    """Every estimate with its interval, one per line: the data behind the figures."""
    rows: list[tuple[Cell, ...]] = []
    for s in summaries:
        families: list[tuple[str, dict[str, Accuracy]]] = [
            ("overall", {"all": s.overall}),
            ("category", s.categories),
            ("topic", s.topics),
            ("sessions", {str(k): e for k, e in s.sessions.items()}),
        ]
        for family, groups in families:
            for group, e in groups.items():
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
        "estimates",
        "Every estimate with its 95% interval",
        "Standard errors and intervals need two or more contexts; with fewer they are left blank.",
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


@dataclass(frozen=True)
class HistoryPair:
    """Two runs that differ only in `history`, each summarised over the questions both
    scored (a `--limit`ed or interrupted run must not be compared on other questions)."""

    full: RunSummary
    none: RunSummary


def _paired(full: RunSummary, none: RunSummary) -> HistoryPair:
    common = {s.id for s in full.run.samples} & {s.id for s in none.run.samples}
    return HistoryPair(on_questions(full, common), on_questions(none, common))


def history_pairs(summaries: Sequence[RunSummary]) -> list[HistoryPair]:
    """Runs that differ only in `history`, one pair per model and setting.

    Of several runs of one kind, the latest complete one is taken (else the latest).
    """
    groups: dict[tuple[object, ...], list[RunSummary]] = defaultdict(list)
    for s in summaries:
        rest = tuple((k, v) for k, v in s.run.settings.items() if k != "history")
        groups[(s.run.model, s.run.split, rest)].append(s)
    pairs = []
    for members in groups.values():
        full = [s for s in members if s.run.settings["history"] == "full"]
        none = [s for s in members if s.run.settings["history"] == "none"]
        if full and none:
            pairs.append(_paired(_preferred(full), _preferred(none)))
    return pairs


def _preferred(runs: Sequence[RunSummary]) -> RunSummary:
    return max(runs, key=lambda s: (s.run.complete, s.run.created))


def history_gain_table(pairs: Sequence[HistoryPair]) -> Table:
    columns = (
        "with history", "without history", "questions compared", "overall",
        *(CATEGORY_TITLES[k] for k in CATEGORIES), "macro average",
    )  # fmt: skip
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            p.full.label,
            p.none.label,
            p.full.overall.n,
            p.full.overall.accuracy - p.none.overall.accuracy,
            *(
                p.full.categories.get(k, NO_ESTIMATE).accuracy
                - p.none.categories.get(k, NO_ESTIMATE).accuracy
                for k in CATEGORIES
            ),
            p.full.macro - p.none.macro,
        )
        for p in pairs
    )
    return Table(
        "history_gain",
        "Gain from the history (history=full minus history=none)",
        "Accuracy points gained by sending the conversation history, for runs that differ "
        "only in `history`, over the questions both runs scored. Where a model and setting "
        "were run several times, the latest complete run of each kind (else the latest) is "
        "paired.",
        columns,
        rows,
    )


def published_table(matches: Sequence[tuple[RunSummary, PublishedModel]]) -> Table:
    columns = ("run", "source", "overall", *(CATEGORY_TITLES[k] for k in CATEGORIES))
    rows: list[tuple[Cell, ...]] = []
    for s, published in matches:
        ours = [s.categories.get(k, NO_ESTIMATE).accuracy for k in CATEGORIES]
        theirs = [published.categories.get(k, math.nan) for k in CATEGORIES]
        rows.append((s.label, "this run", s.overall.accuracy, *ours))
        rows.append((s.label, f"published: {published.name}", published.overall, *theirs))
        rows.append(
            (
                s.label,
                "difference",
                s.overall.accuracy - published.overall,
                *(a - b for a, b in zip(ours, theirs, strict=True)),
            )
        )
    return Table(
        "published",
        f"Next to the published {SPLIT} numbers",
        f"Only runs of the {SPLIT} split whose model maps to a published name "
        "(`--published-name MODEL=NAME`). Published numbers: the PersonaMem authors' "
        "website (Jiang et al., COLM 2025).",
        columns,
        tuple(rows),
    )
