"""Open answers (`-T answer=open`) analysed: each grader's trials kind by kind, the
accuracy it gave corrected for its errors, whether it is to be trusted, and a model's
chosen answers paired with its open ones (the paper's Figure 6); their tables are
`graded_tables.py`'s.

An open answer is judged by a grader, so an open accuracy is only as good as its
grader. The task measures the grader in the same run (`docs/open-answers.md`): on
replies built from the candidates, whose right verdict is known, of several kinds
(`scoring/grader/trials.py`). Each kind's share of right verdicts and its 95% interval
are recomputed here from each question's counts, by the functions the metrics use
(`scoring/grader/correction.py`), and so is the corrected accuracy.

Whether a grader is to be trusted is read off the intervals, not the point estimates:
it is not where a kind's interval lies wholly below `TRIAL_LEVEL`, or the interval of
its unreadable verdicts on the replies wholly above `UNREADABLE_MAX`; its measurement is
too imprecise to say where a kind's interval is wider than `MAX_WIDTH`. A note says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.base import Group
from inspect_personamem.report.accuracy import Accuracy, RunSummary, accuracy_of
from inspect_personamem.report.agreement import regrading_notes
from inspect_personamem.report.differences import (
    Groups,
    known_groups,
    present_groups,
)
from inspect_personamem.report.labels import grader_labels
from inspect_personamem.report.pairs import by_kind, on_common_questions
from inspect_personamem.scoring.grader.correction import Estimate, kind_counts, right_share
from inspect_personamem.scoring.grader.trials import TRIAL_KINDS, TrialKind

TRIAL_LEVEL = 0.9
"""A kind of trial fails where its 95% interval lies wholly below this share of right
verdicts: the grader errs on more than one such trial in ten, by more than the chance
of its few trials explains."""
MAX_WIDTH = 0.2
"""A kind of trial is measured too imprecisely to say where its 95% interval is wider
than this: it cannot tell a grader right on 9 trials in 10 (`TRIAL_LEVEL`) from one
right on 7."""
UNREADABLE_MAX = 0.05
"""A grader's verdicts on the replies are unreadable too often where the 95% interval
of their share lies wholly above this: its format, not the model, decides more than one
score in twenty."""


def graded(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """The runs whose open answers a grader judged by naming a candidate (`answer=open`;
    not a judge scoring them against the label, `Run.judged`)."""
    return [s for s in summaries if s.run.grader is not None and not s.run.judged]


@dataclass(frozen=True)
class KindResult:
    """How a grader did on one kind of trial over a run's calibrated questions."""

    kind: TrialKind
    trials: int
    right: int
    share: Estimate
    """The share of right verdicts and its 95% interval (`correction.right_share`)."""

    @property
    def finding(self) -> str:
        """`fails` (its interval wholly below `TRIAL_LEVEL`), `imprecise` (wider than
        `MAX_WIDTH`), `holds`, or `no trials` where the kind did not apply."""
        if not self.trials:
            return "no trials"
        if self.share.high < TRIAL_LEVEL:
            return "fails"
        return "imprecise" if self.share.high - self.share.low > MAX_WIDTH else "holds"

    @property
    def said(self) -> str:
        """The share and its interval in a few words: `generic 0.25 [0.10, 0.49]`."""
        share = self.share
        return f"{self.kind} {share.value:.2f} [{share.low:.2f}, {share.high:.2f}]"


def kind_results(summary: RunSummary) -> list[KindResult]:
    """The grader's results on each kind of trial (`TRIAL_KINDS`), over the run's
    questions."""
    results = []
    for kind in TRIAL_KINDS:
        counts = kind_counts(summary.trials, kind, "right")
        results.append(
            KindResult(
                kind,
                round(sum(n for _, n in counts)),
                round(sum(hits for hits, _ in counts)),
                right_share(summary.trials, (kind,)),
            )
        )
    return results


def unreadable(summary: RunSummary) -> Accuracy:
    """The share of the replies whose verdict could not be read (all epochs), with its
    95% interval clustered by shared history, as an accuracy's (`accuracy_of`)."""
    samples = summary.run.samples
    return accuracy_of([replace(s, value=s.statuses.get("unreadable", 0.0)) for s in samples])


def distrust(summary: RunSummary) -> list[str]:
    """Why an open run's grader is not to be trusted, a few words each: each kind of
    trial that fails, and its unreadable verdicts where they are too many; none where
    nothing does (or nothing was measured: `trust` says so)."""
    reasons = [
        f"{result.said} below {TRIAL_LEVEL}"
        for result in kind_results(summary)
        if result.finding == "fails"
    ]
    share = unreadable(summary)
    if share.low > UNREADABLE_MAX:
        reasons.append(
            f"unreadable verdicts {share.accuracy:.2f} [{share.low:.2f}, {share.high:.2f}] "
            f"above {UNREADABLE_MAX}"
        )
    return reasons


def imprecise(summary: RunSummary) -> list[str]:
    """The kinds of trial measured too imprecisely to say (`KindResult.finding`)."""
    return [r.said for r in kind_results(summary) if r.finding == "imprecise"]


def trust(summary: RunSummary) -> str:
    """Whether an open run's grader can be trusted, in a few words."""
    reasons = distrust(summary)
    if reasons:
        return "NO: " + "; ".join(reasons)
    if not summary.calibration.questions:
        return "unknown: not calibrated"
    vague = imprecise(summary)
    return f"too few trials to say: {'; '.join(vague)}" if vague else "yes"


def grader_names(summaries: Sequence[RunSummary]) -> list[str]:
    """Each run's grader, in words: the model bound to the grader role, or the model
    under test."""
    graders = grader_labels([s.run for s in summaries])
    return [grader or f"{s.run.model} itself" for s, grader in zip(summaries, graders, strict=True)]


def grader_notes(summaries: Sequence[RunSummary]) -> list[str]:
    """A note for each open run whose grader (or judge) is not to be trusted, was
    measured on too few trials to say, or was not calibrated (that a run was
    self-graded the summary says: `glance.caveat_lines`); and for each set of gradings
    of the same replies (`agreement.regrading_notes`)."""
    runs = [s for s in summaries if s.run.grader is not None]
    notes = []
    for s, grader in zip(runs, grader_names(runs), strict=True):
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
        elif vague := imprecise(s):
            notes.append(
                f"{s.label}: its grader {grader} was measured on too few trials to say "
                f"whether it can be trusted ({'; '.join(vague)}: intervals wider than "
                f"{MAX_WIDTH}; calibrated on {s.calibration.questions} questions): "
                "calibrate it on more (`-T grader_calibration`)"
            )
    return notes + regrading_notes(graded(summaries))


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
