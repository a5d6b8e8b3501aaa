"""The tables of open answers' graders (`report/graded.py`, `report/agreement.py`
analyse them): each grader beside the accuracy it gave and corrected, its trials kind
by kind, gradings of the same replies side by side, and a model's chosen answers
against its open ones (the paper's Figure 6).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

from inspect_personamem.datasets.base import Group
from inspect_personamem.report.accuracy import RunSummary, accuracy_of
from inspect_personamem.report.agreement import DRAWS, agreement_of, regradings, verdict_pairs
from inspect_personamem.report.differences import differences
from inspect_personamem.report.graded import (
    MAX_WIDTH,
    TRIAL_LEVEL,
    UNREADABLE_MAX,
    ChoiceOpenPair,
    choice_open_groups,
    graded,
    grader_names,
    kind_results,
    trust,
)
from inspect_personamem.report.pairs import on_common_questions
from inspect_personamem.report.tables import (
    DIFFERENCE_COLUMNS,
    DIFFERENCE_NOTE,
    Cell,
    DifferenceRow,
    Table,
    difference_cells,
    difference_table,
)
from inspect_personamem.scoring.grader.trials import RIGHT_VERDICTS

SELF_GRADED = (
    "the grader is the model under test (its name, model arguments and base URL), "
    "whether by `-T grader=self` or bound to the grader role"
)
"""What `self-graded` means, as the tables say it."""


TRUST_RULE = (
    f"A grader is NOT to be trusted where a kind's 95% interval lies wholly below "
    f"{TRIAL_LEVEL} (it errs on more than one such trial in ten, beyond the chance of its "
    f"trials), or the interval of its unreadable verdicts on the replies wholly above "
    f"{UNREADABLE_MAX}; there are too few trials to say where a kind's interval is wider "
    f"than {MAX_WIDTH} (it cannot tell right on 9 trials in 10 from right on 7: calibrate "
    "on more questions, `-T grader_calibration`)."
)
"""The rule the `trustworthy` column and the trial table's `finding` follow."""


def grader_table(summaries: Sequence[RunSummary], name: str = "graders") -> Table:
    """One row per open run: its accuracy as graded and corrected for its grader's
    errors, its grader's verdicts and whether it can be trusted; `name` is the table's
    file stem."""
    runs = graded(summaries)
    rows: list[tuple[Cell, ...]] = []
    for s, grader in zip(runs, grader_names(runs), strict=True):
        corrected = s.corrected
        rows.append(
            (
                s.label,
                grader,
                "yes" if s.run.self_graded else "no",
                s.overall.accuracy,
                corrected.accuracy.value,
                corrected.accuracy.low,
                corrected.accuracy.high,
                corrected.sensitivity,
                corrected.false_positive,
                s.statuses.get("none", 0.0) if s.overall.n else math.nan,
                s.statuses.get("unreadable", 0.0) if s.overall.n else math.nan,
                s.calibration.questions,
                trust(s),
            )
        )
    return Table(
        name,
        "Open answers and their grader",
        "Runs with `-T answer=open`: the grader (the model bound to the grader role, or "
        "with `-T grader=self` the model under test) read each reply and named the "
        "candidate whose assumptions about the user it shares; `accuracy`: it named the "
        f"correct one. `self-graded`: {SELF_GRADED}. `corrected` (with its 95% interval): "
        "the accuracy corrected for the grader's errors measured by its trials (Rogan and "
        "Gladen: (accuracy − false positives) / (sensitivity − false positives), clipped "
        "to [0, 1]; blank where the grader names the correct candidate no more often for "
        "right replies than for wrong ones), its interval a bootstrap clustered by shared "
        "history that carries the trials' uncertainty too; `sensitivity`: how often it "
        "named the correct candidate for a reply that carries it (the mean of the "
        "`identity_correct` and `length` trials), `false positives`: how often for one "
        "that does not (the mean of the `identity_wrong`, `generic` and `mixed` trials). "
        "The correction assumes the trials stand for the real replies, which are "
        "paraphrases no trial is: compare graders (re-grade the run: `grader_agreement`) "
        "rather than trust one. `none share`, `unreadable share`: answers (all epochs) "
        "on which it named no candidate, or gave no verdict that could be read (both "
        "scored wrong). `calibrated questions`: those it was measured on (each kind of "
        f"trial in `grader_trials`). {TRUST_RULE} `unknown` where it was not calibrated "
        "(`-T grader_calibration=0`).",
        (
            "run",
            "grader",
            "self-graded",
            "accuracy",
            "corrected",
            "corrected ci95 low",
            "corrected ci95 high",
            "sensitivity",
            "false positives",
            "none share",
            "unreadable share",
            "calibrated questions",
            "trustworthy",
        ),
        tuple(rows),
    )


def trial_table(summaries: Sequence[RunSummary], name: str = "grader_trials") -> Table:
    """One row per calibrated open run and kind of trial: its trials, the right ones,
    their share with its interval, and what that finds; `name` is the table's file
    stem."""
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            s.label,
            r.kind,
            RIGHT_VERDICTS[r.kind],
            r.trials,
            r.right,
            r.share.value,
            r.share.low,
            r.share.high,
            r.finding,
        )
        for s in graded(summaries)
        if s.calibration.questions
        for r in kind_results(s)
    )
    return Table(
        name,
        "The graders' trials",
        "Per open run whose grader was measured, per kind of trial: the grader was shown "
        "replies built from the question's candidates, whose right verdict is known "
        "(`right verdict`; see docs/open-answers.md), each under two orders of the "
        "candidates, and the run's own reply again under the reverse order (`reorder`). "
        "`trials`, `right`: summed over the calibrated questions; `accuracy`: the share "
        "of right verdicts, with its 95% interval (Wilson's, with the trials counted as "
        "fewer where one question's trials go together: Kish's design effect), as the "
        "metrics `grader_identity` (both identity kinds), `grader_generic`, "
        "`grader_mixed`, `grader_length` and `grader_reorder` give them. `finding`: "
        f"`fails` where the interval lies wholly below {TRIAL_LEVEL}, `imprecise` where "
        f"it is wider than {MAX_WIDTH}, `holds` otherwise, `no trials` where the kind did "
        f"not apply to the questions (left out of the corrected accuracy). {TRUST_RULE}",
        (
            "run",
            "kind",
            "right verdict",
            "trials",
            "right",
            "accuracy",
            "ci95 low",
            "ci95 high",
            "finding",
        ),
        rows,
    )


def grader_tables(summaries: Sequence[RunSummary], prefix: str = "") -> list[Table]:
    """The tables of the graders that named candidates, where any did:
    `<prefix>graders`; `<prefix>grader_trials`, where one was measured; and
    `<prefix>grader_agreement`, where the same replies were graded more than once."""
    runs = graded(summaries)
    if not runs:
        return []
    measured = any(s.calibration.questions for s in runs)
    return [
        grader_table(runs, f"{prefix}graders"),
        *([trial_table(runs, f"{prefix}grader_trials")] if measured else []),
        *([agreement_table(runs, f"{prefix}grader_agreement")] if regradings(runs) else []),
    ]


def agreement_table(graded: Sequence[RunSummary], name: str = "grader_agreement") -> Table:
    """One row per two gradings of the same replies: their accuracies, agreement and
    kappa; `name` is the table's file stem."""
    rows: list[tuple[Cell, ...]] = []
    for same in regradings(graded):
        for a, b in combinations(same, 2):
            found = agreement_of(verdict_pairs(a, b))
            first, second = on_common_questions([a, b])
            rows.append(
                (
                    a.label,
                    b.label,
                    first.overall.n,
                    found.contexts,
                    first.overall.accuracy,
                    second.overall.accuracy,
                    found.agreement.value,
                    found.agreement.low,
                    found.agreement.high,
                    found.kappa.value,
                    found.kappa.low,
                    found.kappa.high,
                )  # fmt: skip
            )
    return Table(
        name,
        "Gradings of the same replies",
        "Each two gradings of one run's replies (a run re-graded by `inspect score "
        "--scorer inspect_personamem/graded_scorer --model-role grader=...`: the same "
        "eval, Inspect's `eval_id`), each a run of its own in the other tables, labelled "
        "by its grader. Over the questions both scored (`questions`; with several epochs "
        "every epoch's verdicts are paired): `accuracy` under each grader; `agreement`: "
        "the share of verdicts that are the same (the candidate named, `none` or "
        "`unreadable`); `kappa`: Cohen's, that agreement beyond what two graders giving "
        "each verdict as often would reach by chance (1: they always agree; 0: no more "
        "than chance; blank where both gave one verdict throughout). Their 95% intervals "
        f"come from a cluster bootstrap ({DRAWS} draws, seeded) of the shared histories "
        "(`contexts`). High agreement says the graders read the replies alike, not that "
        "either reads them right: their trials (`grader_trials`) say that.",
        (
            "grading",
            "other grading",
            "questions",
            "contexts",
            "accuracy",
            "other accuracy",
            "agreement",
            "ci95 low",
            "ci95 high",
            "kappa",
            "kappa ci95 low",
            "kappa ci95 high",
        ),  # fmt: skip
        tuple(rows),
    )


def choice_open_table(
    pairs: Sequence[ChoiceOpenPair], by: Group, bins: Group, prefix: str, note: str
) -> Table:
    """Per pair, overall, macro average, each known value of `by` (question type) and
    each value of `bins` (of sessions elapsed, shown as `<prefix><value>`): the chosen
    and the open accuracy and their paired difference; `note` says what is compared."""
    rows: list[DifferenceRow] = []
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
            rows.append(((p.open.label, p.chosen.label, measure, *accuracies, *cells), measure, d))
    return difference_table(
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
