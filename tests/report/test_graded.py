"""Open answers analysed (`report/graded.py`): what a grader's trials of one kind find,
whether the grader is to be trusted and the notes that say why not, its name, and each
open run paired with the chosen run of its model; on hand-built runs."""

from __future__ import annotations

import math
from dataclasses import replace

from support.reports import a_summary, results

from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.graded import (
    KindResult,
    choice_open_pairs,
    grader_names,
    grader_notes,
    kind_results,
    trust,
)
from inspect_personamem.report.read.identity import Grader
from inspect_personamem.report.read.samples import Calibration
from inspect_personamem.scoring.grader.correction import Estimate, TrialCounts
from inspect_personamem.scoring.grader.trials import TRIAL_KINDS, TrialKind

OPEN = {"answer": "open"}
GRADER = Grader(("mockllm/grader", ()))


def open_run(
    label: str, right: dict[str, int] | None, questions: int = 20, unreadable: float = 0.0
) -> RunSummary:
    """An open run over `questions` questions in 4 histories, half right, graded by
    `GRADER`; each question calibrated with 2 trials of every kind, `right[kind]` of
    them right (2 where not said), unless `right` is None (not calibrated)."""
    per_context = [[float(i % 2) for i in range(questions // 4)]] * 4
    samples = []
    for s in results(*per_context):
        trials: TrialCounts = {
            kind: {"trials": 2, "right": (right or {}).get(kind, 2), "named_correct": 0}
            for kind in TRIAL_KINDS
        }
        samples.append(
            replace(
                s,
                statuses={"named": 1.0 - unreadable, "unreadable": unreadable} if unreadable
                else {"named": 1.0},
                trials=trials if right is not None else {},
                calibration=Calibration(questions=1) if right is not None else Calibration(),
            )
        )  # fmt: skip
    return a_summary(label, samples, settings=OPEN, grader=GRADER, eval_id=f"eval-{label}")


def test_a_kind_of_trial_fails_below_the_level_and_is_imprecise_when_wide() -> None:
    generic: TrialKind = "generic"
    assert KindResult(generic, 0, 0, Estimate(math.nan, math.nan, math.nan)).finding == (
        "no trials"
    )
    assert KindResult(generic, 20, 15, Estimate(0.75, 0.55, 0.89)).finding == "fails"
    wide = KindResult(generic, 10, 9, Estimate(0.9, 0.65, 0.98))
    assert wide.finding == "imprecise"
    assert wide.said == "generic 0.90 [0.65, 0.98]"
    assert KindResult(generic, 100, 97, Estimate(0.97, 0.91, 0.99)).finding == "holds"


def test_a_graders_trials_are_summed_kind_by_kind_over_the_questions() -> None:
    run = open_run("open", {"generic": 1})
    by_kind = {r.kind: r for r in kind_results(run)}
    assert list(by_kind) == list(TRIAL_KINDS)
    assert (by_kind["generic"].trials, by_kind["generic"].right) == (40, 20)
    assert by_kind["generic"].share.value == 0.5 and by_kind["generic"].finding == "fails"
    assert (by_kind["mixed"].trials, by_kind["mixed"].right, by_kind["mixed"].finding) == (
        40, 40, "holds",
    )  # fmt: skip


def test_whether_a_grader_is_to_be_trusted_and_why_not() -> None:
    """Right on every trial of 20 questions: trusted. Right on none of its generic
    trials: not, naming the kind. Unreadable on every reply: not, naming the share. Not
    calibrated: unknown. Calibrated on one question: too few trials to say."""
    assert trust(open_run("good", {})) == "yes"
    generic = trust(open_run("generic", {"generic": 0}))
    assert generic.startswith("NO: generic 0.00 [0.00, ") and generic.endswith("] below 0.9")
    unread = trust(open_run("unread", {}, unreadable=1.0))
    assert unread.startswith("NO: unreadable verdicts 1.00 [") and unread.endswith(" above 0.05")
    assert trust(open_run("uncalibrated", None)) == "unknown: not calibrated"
    few = trust(open_run("few", {}, questions=4))  # 8 trials a kind
    assert few.startswith("too few trials to say: identity_correct 1.00 [")
    assert few.count("1.00 [") == len(TRIAL_KINDS)


def test_a_note_for_each_grader_not_trusted_not_calibrated_or_measured_too_little() -> None:
    """A trusted grader gets no note; a run graded by its own model is named so."""
    runs = [
        open_run("good", {}),
        open_run("generic", {"generic": 0}),
        open_run("uncalibrated", None),
        open_run("few", {}, questions=4),
    ]
    notes = grader_notes(runs)
    assert len(notes) == 3
    assert notes[0].startswith(
        "generic: its grader mockllm/grader is NOT to be trusted (generic 0.00 ["
    )
    assert notes[0].endswith(
        "calibrated on 20 questions): its open accuracy measures the grader as much as the model"
    )
    assert notes[1].startswith("uncalibrated: its grader mockllm/grader was not calibrated")
    assert notes[2].startswith(
        "few: its grader mockllm/grader was measured on too few trials to say"
    )
    itself = replace(runs[0].run, grader=Grader(runs[0].run.model_id))
    assert grader_names([runs[0], replace(runs[0], run=itself)]) == [
        "mockllm/grader",
        "mockllm/model-a itself",
    ]


def test_an_open_run_is_paired_with_the_chosen_run_of_its_model_split_and_history() -> None:
    """Over the questions both scored; an open run of another history, without a chosen
    run of its own, makes no pair."""
    open_ = open_run("open", {})
    chosen = a_summary("chosen", results([1.0] * 5, [1.0] * 5, [1.0] * 5, [0.0] * 4))
    none_open = replace(
        open_, run=replace(open_.run, settings={**open_.run.settings, "history": "none"}),
        label="open, no history",
    )  # fmt: skip
    [pair] = choice_open_pairs([chosen, open_, none_open])
    assert (pair.chosen.label, pair.open.label) == ("chosen", "open")
    assert pair.chosen.overall.n == pair.open.overall.n == 19
    assert pair.chosen.overall.accuracy == 15 / 19
