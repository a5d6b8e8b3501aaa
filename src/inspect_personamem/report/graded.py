"""Open answers (`-T answer=open`) in the report: each grader beside the accuracy it
gave, and a model's chosen answers against its open ones (the paper's Figure 6).

An open answer is judged by a grader, so an open accuracy is only as good as its
grader. The task measures the grader in the same run (`docs/open-answers.md`): shown
each candidate itself as the reply, under two orders, it should name that candidate
(identity accuracy) whatever the order (position bias). Both are recomputed here
from each question's counts. A grader is not to be trusted where its identity
accuracy is below `IDENTITY_MIN`, its position bias above `POSITION_BIAS_MAX`, or its
verdicts on the replies unreadable more often than `UNREADABLE_MAX`; a note says so
(and the summary, when the model under test graded its own replies).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.base import Group
from inspect_personamem.report.accuracy import RunSummary, accuracy_of
from inspect_personamem.report.differences import (
    Groups,
    differences,
    known_groups,
    present_groups,
)
from inspect_personamem.report.labels import grader_labels
from inspect_personamem.report.tables import (
    DIFFERENCE_COLUMNS,
    DIFFERENCE_NOTE,
    Cell,
    Table,
    by_kind,
    difference_cells,
    on_common_questions,
)

IDENTITY_MIN = 0.9
"""Below this identity accuracy a grader is not to be trusted: it fails to name the
very candidate it is shown more than once in ten trials."""
POSITION_BIAS_MAX = 0.1
"""Above this position bias a grader is not to be trusted: the order of the candidates
changes its verdict on more than one candidate in ten."""
SELF_GRADED = (
    "the grader is the model under test (its name, model arguments and base URL), "
    "whether by `-T grader=self` or bound to the grader role"
)
"""What `self-graded` means, as the tables say it."""
UNREADABLE_MAX = 0.05
"""Above this share of unreadable verdicts on the replies a grader is not to be
trusted: its answers, not the model's, decide too many scores."""


def graded(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """The runs whose open answers a grader judged by naming a candidate (`answer=open`;
    not a judge scoring them against the label, `Run.judged`)."""
    return [s for s in summaries if s.run.grader is not None and not s.run.judged]


def distrust(summary: RunSummary) -> list[str]:
    """Why an open run's grader is not to be trusted, a few words each; none where it
    passed every threshold (or was not measured: `trust` says so)."""
    calibration = summary.calibration
    unreadable = summary.statuses.get("unreadable", 0.0)
    reasons = []
    if calibration.identity_accuracy < IDENTITY_MIN:
        reasons.append(f"identity accuracy {calibration.identity_accuracy:.2f} < {IDENTITY_MIN}")
    if calibration.position_bias > POSITION_BIAS_MAX:
        reasons.append(f"position bias {calibration.position_bias:.2f} > {POSITION_BIAS_MAX}")
    if unreadable > UNREADABLE_MAX:
        reasons.append(f"unreadable verdicts {unreadable:.2f} > {UNREADABLE_MAX}")
    return reasons


def trust(summary: RunSummary) -> str:
    """Whether an open run's grader can be trusted, in a few words."""
    reasons = distrust(summary)
    if reasons:
        return "NO: " + "; ".join(reasons)
    return "yes" if summary.calibration.questions else "unknown: not calibrated"


def _grader_names(summaries: Sequence[RunSummary]) -> list[str]:
    """Each run's grader, in words: the model bound to the grader role, or the model
    under test."""
    graders = grader_labels([s.run for s in summaries])
    return [grader or f"{s.run.model} itself" for s, grader in zip(summaries, graders, strict=True)]


def grader_table(summaries: Sequence[RunSummary], name: str = "graders") -> Table:
    """One row per open run: its accuracy, its grader's verdicts, calibration and
    trust; `name` is the table's file stem."""
    runs = graded(summaries)
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            grader,
            "yes" if s.run.self_graded else "no",
            s.overall.accuracy,
            s.statuses.get("none", 0.0) if s.overall.n else math.nan,
            s.statuses.get("unreadable", 0.0) if s.overall.n else math.nan,
            s.calibration.questions,
            s.calibration.identity_accuracy,
            s.calibration.position_bias,
            trust(s),
        )
        for s, grader in zip(runs, _grader_names(runs), strict=True)
    )
    return Table(
        name,
        "Open answers and their grader",
        "Runs with `-T answer=open`: the grader (the model bound to the grader role, or "
        "with `-T grader=self` the model under test) read each reply and named the "
        "candidate whose assumptions about the user it shares; `accuracy`: it named the "
        f"correct one. `self-graded`: {SELF_GRADED}. `none share`, `unreadable share`: "
        "answers (all epochs) on which it named no candidate, or gave no verdict that "
        "could be read (both scored wrong). Calibration, recomputed from each calibrated "
        "question's counts: shown each candidate itself as the reply under two orders, the share "
        "of trials in which it named that candidate (`identity accuracy`) and the share "
        "of candidates whose verdict changed with the order (`position bias`). "
        f"Trustworthy: identity accuracy at least {IDENTITY_MIN}, position bias at most "
        f"{POSITION_BIAS_MAX} and unreadable verdicts at most {UNREADABLE_MAX}; "
        "`unknown` where it was not calibrated (`-T grader_calibration=0`).",
        (
            "run",
            "grader",
            "self-graded",
            "accuracy",
            "none share",
            "unreadable share",
            "calibrated questions",
            "identity accuracy",
            "position bias",
            "trustworthy",
        ),
        rows,
    )


def grader_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """A note for each open run whose grader (or judge) is not to be trusted or was not
    calibrated (that a run was self-graded the summary says: `glance.caveat_lines`)."""
    runs = [s for s in summaries if s.run.grader is not None]
    notes = []
    for s, grader in zip(runs, _grader_names(runs), strict=True):
        reasons = distrust(s)
        if reasons:
            notes.append(
                f"{s.label}: its grader {grader} is NOT to be trusted ({'; '.join(reasons)}; "
                f"calibrated on {s.calibration.questions} questions): its open accuracy "
                "measures the grader as much as the model"
            )
        elif not s.calibration.questions:
            notes.append(
                f"{s.label}: its grader {grader} was not calibrated (`-T "
                "grader_calibration=0`, or the run asked none of the calibration "
                "questions): whether it can be trusted is not known"
            )
    return notes


@dataclass(frozen=True)
class ChoiceOpenPair:
    """A model's run choosing among the options and its run answering openly, of one
    split, history and other settings, over the questions both scored."""

    chosen: RunSummary
    open: RunSummary


def choice_open_pairs(summaries: Sequence[RunSummary]) -> list[ChoiceOpenPair]:
    """Every open run with the chosen run (`answer=choice`) of the same model, split,
    history and other settings, if any; of several runs of one kind the latest
    complete one."""
    kinds = by_kind(summaries)
    chosen = {_but_answer(s): s for s in kinds if s.run.settings["answer"] == "choice"}
    pairs = [
        ChoiceOpenPair(*on_common_questions([chosen[_but_answer(s)], s]))
        for s in graded(kinds)
        if _but_answer(s) in chosen
    ]
    return [p for p in pairs if p.open.overall.n]


def _but_answer(summary: RunSummary) -> tuple[object, ...]:
    """A run's model, split and settings, less how it answered (`answer` and the
    parameters of every answer)."""
    answer = {"answer"} | {p.name for value in ANSWERS.values() for p in value.parameters}
    rest = tuple(sorted((k, v) for k, v in summary.run.settings.items() if k not in answer))
    return (summary.run.model_id, summary.run.split, rest)


def choice_open_groups(pair: ChoiceOpenPair, by: Group, bins: Group, prefix: str) -> Groups:
    """What a pair is compared on beside overall and macro average: each known value
    of `by` (each question type) and each value of `bins` the open run's questions have,
    as `<prefix><value>` (`sessions 2-3`)."""
    return {**known_groups(by), **present_groups(pair.open, bins, prefix)}


def choice_open_table(
    pairs: Sequence[ChoiceOpenPair], by: Group, bins: Group, prefix: str, note: str
) -> Table:
    """Per pair, overall, macro average, each known value of `by` (question type) and
    each value of `bins` (of sessions elapsed, shown as `<prefix><value>`): the chosen
    and the open accuracy and their paired difference; `note` says what is compared."""
    rows: list[tuple[Cell, ...]] = []
    for p in pairs:
        groups = choice_open_groups(p, by, bins, prefix)
        members = {"overall": lambda question: True, **groups}
        for measure, d in differences(p.open, p.chosen, groups):
            if measure in members:
                chosen, answered = (
                    accuracy_of([q for q in s.run.samples if members[measure](q)])
                    for s in (p.chosen, p.open)
                )
                accuracies: tuple[Cell, ...] = (
                    chosen.accuracy,
                    chosen.shown_stderr,
                    answered.accuracy,
                    answered.shown_stderr,
                )
            else:  # the macro average, a mean of means: no standard error of its own here
                accuracies = (p.chosen.macro, math.nan, p.open.macro, math.nan)
            cells = difference_cells(measure, d, p.open, p.chosen)
            rows.append((p.open.label, p.chosen.label, measure, *accuracies, *cells))
    return Table(
        "choice_open",
        "Chosen against open answers (the paper's Figure 6)",
        "A model's run choosing among the four options (`answer=choice`) beside its run "
        "answering openly (`answer=open`, judged by its grader: see `graders`), of one "
        f"split, history and other settings, over the questions both scored: {note}. "
        "`chosen`, `open`: accuracies with their clustered standard errors; `difference`: "
        f"open minus chosen. {DIFFERENCE_NOTE}",
        (
            "open run",
            "chosen run",
            "measure",
            "chosen",
            "chosen stderr",
            "open",
            "open stderr",
            *DIFFERENCE_COLUMNS[1:],
        ),
        tuple(rows),
    )
