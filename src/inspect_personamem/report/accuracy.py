"""Accuracy and its 95% interval, recomputed from a run's per-question scores.

The estimates are the ones the run's log holds (`scoring.intervals.interval`, which the
log's `ci_low` / `ci_high` and PersonaMem-v3's metrics are computed by): the mean, its
standard error clustered by the run's version's `cluster` (questions that share a
history are not independent; Inspect's `stderr(cluster=...)`, the number `inspect view`
shows, checked against the log) and a Wilson score interval over the effective sample
size (Korn-Graubard: n over the design effect of the clustering, never more than n)
with Student's t at (contexts - 1) degrees of freedom, Inspect's `ci_wilson(0.95,
cluster=...)`. Unlike mean ± t × stderr it stays inside [0, 1] and is not a point at
0 or 1 (4 questions all right in 4 contexts: [0.28, 1], not [1, 1]), and it widens
with the correlation of questions over one history. Where a question's score lies
outside [0, 1] (PersonaMem-v3's graded NDCG can be below 0), there is no proportion to
bound: the interval is mean ± t(contexts - 1) × the clustered error.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence, Set
from dataclasses import dataclass, replace
from typing import Final

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.datasets.base import JUDGED, Group
from inspect_personamem.report.read.runs import Run
from inspect_personamem.report.read.samples import READ, Calibration, SampleResult
from inspect_personamem.scoring.grader.correction import (
    Corrected,
    TrialCounts,
    corrected_by_trials,
)
from inspect_personamem.scoring.intervals import Clustered, interval
from inspect_personamem.scoring.metrics import NO_VALUE, group_order

OPTION_SCORINGS: Final = frozenset({*(a.scored_as for a in ANSWERS.values()), JUDGED})
"""How a run's answers are scored where an answer is read as one option (the answers'
own ways, and v2's judge of the label): the unparsed share means something there."""


@dataclass(frozen=True)
class Accuracy:
    """Accuracy over some questions, with its clustered standard error and interval.

    The interval is the cluster-adjusted Wilson interval (`scoring.intervals.interval`,
    Inspect's `ci_wilson`). With fewer
    than two contexts the clustered error cannot be estimated:
    Inspect gives 0 (kept in `stderr`, to check against the log), while the tables show
    `shown_stderr` and the interval as NaN (blank), not a false zero width.
    """

    n: int
    contexts: int
    accuracy: float
    stderr: float
    """Inspect's clustered standard error, as it stores it."""
    low: float
    high: float

    @property
    def shown_stderr(self) -> float:
        """The standard error as tables show it: NaN where it cannot be estimated."""
        return self.stderr if self.contexts >= 2 else math.nan


NO_ESTIMATE = Accuracy(0, 0, math.nan, math.nan, math.nan, math.nan)
"""What a group without questions gets (drawn as a gap, shown as a dash)."""


def accuracy_of(samples: Sequence[SampleResult]) -> Accuracy:
    """Accuracy, clustered standard error and 95% interval of `samples`
    (`scoring.intervals.interval`, as the log's metrics compute them)."""
    if not samples:
        return NO_ESTIMATE
    estimate = interval([Clustered(s.context_id, "", s.value) for s in samples])
    return Accuracy(
        n=estimate.rows,
        contexts=estimate.clusters,
        accuracy=estimate.value,
        stderr=estimate.stderr,
        low=estimate.low,
        high=estimate.high,
    )


NOT_GIVEN = frozenset({NO_VALUE, "None", ""})
"""A group's value where the question has none (PersonaMem-v3's queries without an app
context), as the samples are read (`group_value`: `NO_VALUE`) or were recorded."""


def title_of(group: Group, value: str) -> str:
    """How the report names a value of `group`: its title where it is known, `no <group>`
    where the question has none (`NOT_GIVEN`: never a column headed "None"), else
    itself."""
    return f"no {group.title}" if value in NOT_GIVEN else group.values.get(value, value)


def by_group(samples: Sequence[SampleResult], group: Group) -> dict[str, Accuracy]:
    """One estimate per value of `group` among `samples`, in `group_order` (the
    group's known values in their order, then numbers, then names): the order
    `inspect view` shows them in."""
    values: dict[str, list[SampleResult]] = defaultdict(list)
    for sample in samples:
        values[sample.groups[group.key]].append(sample)
    known = tuple(group.values)
    ordered = sorted(values, key=lambda value: group_order(value, known))
    return {value: accuracy_of(values[value]) for value in ordered}


@dataclass(frozen=True)
class RunSummary:
    """Everything the report shows about one run."""

    run: Run
    label: str
    overall: Accuracy
    groups: dict[str, dict[str, Accuracy]]
    """Each group of the run's dataset version (`Group.key`: a question type, a topic,
    sessions elapsed, a preference type, ...) -> each value's estimate, in `by_group`'s
    order; values no question has are left out."""
    statuses: dict[str, float]
    """Each status of the scored answers (all epochs; `read.samples.READ`) -> its share of them."""
    scored: int
    """Questions the run scored in its log, kept where `on_questions` recomputed it over
    fewer: a paired table says when two runs share fewer than they scored."""

    def mean_of(self, group: Group) -> float:
        """Mean of the accuracies of the values of `group` its questions have (each
        value weighs the same); NaN where they have none."""
        values = [e.accuracy for e in self.groups.get(group.key, {}).values()]
        return sum(values) / len(values) if values else float("nan")

    @property
    def macro(self) -> float:
        """The mean over the values of its version's `mean_group` (each question type
        weighs the same: `category_macro`); NaN without such a group."""
        group = self.run.entry.mean_group
        return self.mean_of(group) if group is not None else float("nan")

    @property
    def unparsed(self) -> float:
        """Share of the scored answers (all epochs) not read as one option: a chosen
        answer without a single option letter, an open one whose grader named no
        candidate or gave no verdict that could be read. None (NaN) for a version's own
        scoring, which reads no option (PersonaMem-v3's rules and judges)."""
        if not self.run.samples or self.run.scored_as not in OPTION_SCORINGS:
            return math.nan
        return math.fsum(share for status, share in self.statuses.items() if status not in READ)

    @property
    def calibration(self) -> Calibration:
        """The grader's calibration over the run's questions (open answers)."""
        return Calibration.total(s.calibration for s in self.run.samples)

    @property
    def trials(self) -> list[TrialCounts]:
        """Each question's trials of its grader per kind (open answers; empty records
        elsewhere)."""
        return [s.trials for s in self.run.samples]

    @property
    def corrected(self) -> Corrected:
        """The accuracy corrected for its grader's errors measured by its trials, as
        `accuracy_corrected` computes it (`correction.corrected_by_trials`, the questions
        resampled by the history they share); NaN where the grader was not measured."""
        replies = [(s.context_id, s.value) for s in self.run.samples]
        return corrected_by_trials(replies, self.trials)


def summarise(run: Run, label: str) -> RunSummary:
    """A run's estimates: overall, and per value of each group of its version."""
    samples = run.samples
    statuses: dict[str, float] = defaultdict(float)
    for sample in samples:
        for status, share in sample.statuses.items():
            statuses[status] += share / len(samples)
    return RunSummary(
        run=run,
        label=label,
        overall=accuracy_of(samples),
        groups={group.key: by_group(samples, group) for group in run.entry.groups},
        statuses=dict(statuses),
        scored=len(samples),
    )


def on_questions(summary: RunSummary, ids: Set[str]) -> RunSummary:
    """`summary` recomputed over those of its questions whose id is in `ids`: a
    question's or a row's id (another run's), or, for a row made of several questions,
    each of theirs (a log's stored question ids)."""
    samples = tuple(s for s in summary.run.samples if s.id in ids or set(s.questions) <= ids)
    if len(samples) == len(summary.run.samples):
        return summary
    return replace(
        summarise(replace(summary.run, samples=samples), summary.label), scored=summary.scored
    )
