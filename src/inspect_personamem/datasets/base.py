"""What a dataset version is: the one object a version adds to `datasets.registry`.

A version declares where its files come from and what is known of the released ones
(its spec), its own task parameters, how its questions are read and checked, the
history its questions are asked after (`data.contexts.Contexts`), how a question
becomes an Inspect `Sample` (its `choices` the options as shown), its scorer and
metrics per way of answering, the groups its accuracy is reported by, and what the
tools around the tasks ask of it: the report's sections, the cost estimate's
requests, the data `inspect-personamem try` generates and the offline models' answers.
Tasks, report, estimate, `try`, oracle and floor read the entry; none names a version.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from inspect_ai.dataset import Dataset
from inspect_ai.scorer import Metric, Scorer, accuracy, stderr

from inspect_personamem.data.contexts import Contexts
from inspect_personamem.data.order import Queued
from inspect_personamem.parameters import Parameter, Point, Settings
from inspect_personamem.scoring.metrics import accuracy_by, grader_metrics, unparsed

if TYPE_CHECKING:  # the report reads the entries; an entry names its types only
    from inspect_personamem.report.accuracy import RunSummary
    from inspect_personamem.report.sections import ReportContext, Section


@dataclass(frozen=True)
class Group:
    """A sample metadata key a version's accuracy is reported by: one metric per value
    (`<metric>_<value>`), one row per value in the report."""

    key: str
    """The sample metadata key."""
    metric: str
    """The metric names' prefix."""
    title: str
    """How the report names it: `question type`, `sessions elapsed`, `preference type`."""
    numeric: bool = False
    """Whether its values are numbers (sorted as such)."""
    mean_of_values: str | None = None
    """The name of a metric that is the mean over its values' accuracies, if any
    (PersonaMem's `category_macro`)."""
    values: Mapping[str, str] = field(default_factory=dict)
    """Known values -> how the report names them, in the order it shows them (values
    not listed follow, sorted)."""


Q = TypeVar("Q", bound=Queued)
"""A version's question type."""


@dataclass(frozen=True)
class Loaded(Generic[Q]):
    """A version's data for one run, read and checked before any sample runs."""

    questions: Sequence[Q]
    """The questions, in file order (the task orders them)."""
    contexts: Contexts
    """The histories they are asked after."""
    metadata: dict[str, Any]
    """The task's metadata: what was selected, where the files came from, and how they
    compare with the release (`data_source`, `data_release`, `data_checked`)."""


@dataclass(frozen=True)
class Generated:
    """Data a version generated for `inspect-personamem try`, and how to run on it."""

    task: str
    """The task to run (`inspect_personamem/<name>`)."""
    questions: Path
    """The question file the oracle reads (`-M questions=...`)."""
    described: str
    """What was written, in words."""


class DatasetVersion(ABC, Generic[Q]):
    """A released dataset version: one entry of `datasets.registry.VERSIONS`."""

    key: str
    """Its short name: the tools' `--dataset` (`v1`, `v2`)."""
    name: str
    """Its name in words and titles (`PersonaMem`, `PersonaMem-v2`)."""
    task: str
    """Its task's name; a task per value of `fixed` adds `_<value>`."""
    summary: str
    """One line: what its questions ask (the task's docstring)."""
    repo_id: str
    revision: str
    license: str
    data_dir_help: str
    """What a local folder (`-T data_dir`) holds."""
    data_dir_env: str
    """The environment variable naming that folder."""
    selectors: tuple[Parameter, ...]
    """The parameters choosing which questions (`split`; `subset`, `length`): recorded
    apart from the settings, so not `scoring`."""
    fixed: str
    """The selector a task per value fixes (`personamem_32k`)."""
    own: tuple[Parameter, ...]
    """Its other parameters (`shuffle`, ...), after the shared `system_messages`."""
    groups: tuple[Group, ...]
    """What its accuracy is reported by, in the order the report shows them."""
    cluster: str
    """The sample metadata key its questions' errors are clustered by (the history
    they share)."""
    cluster_words: str
    """That, in words, for the report."""
    judged_note: str = ""
    """What the report's overall table adds about runs whose answers this version
    scores otherwise than the answer does (`scored_as`, `Run.judged`); none by default."""

    @property
    def fixed_values(self) -> tuple[str, ...]:
        """The values of `fixed`: one task each."""
        return tuple(next(p for p in self.selectors if p.name == self.fixed).choices)

    @property
    def mean_group(self) -> Group | None:
        """The group whose values' accuracies are averaged (`Group.mean_of_values`): the
        report's macro average and its per-value comparisons; None where none is."""
        return next((g for g in self.groups if g.mean_of_values), None)

    @property
    def task_names(self) -> tuple[str, ...]:
        """Its task's name and those of its tasks per value of `fixed`."""
        return (self.task, *(f"{self.task}_{value}" for value in self.fixed_values))

    @abstractmethod
    def check(self, arguments: Settings, point: Point) -> None:
        """Raise a one-line error where the arguments mean nothing for this version
        (beyond what every parameter and axis value checks)."""

    @abstractmethod
    def load(self, arguments: Settings, reads_history: bool) -> Loaded[Q]:
        """Locate, read and check the files the arguments select (the histories only
        where `reads_history`), each malformed cell a one-line error."""

    @abstractmethod
    def dataset(
        self, questions: Sequence[Q], loaded: Loaded[Q], arguments: Settings, point: Point
    ) -> Dataset:
        """The task's samples, in the order of `questions`: no label column, and no
        history, in what the model is sent."""

    @abstractmethod
    def scorer(self, point: Point, arguments: Settings, ids: Sequence[str]) -> Scorer:
        """The run's scorer for its way of answering (`ids`: the run's question ids)."""

    def scored_as(self, answer_scored_as: str, settings: Settings) -> str:
        """How the run's answers are scored: the answer's (`chosen`, `graded`), unless
        the version scores them otherwise (PersonaMem-v2's `judged`)."""
        return answer_scored_as

    def metrics(self, scored_as: str) -> list[Metric]:
        """The task's metrics: accuracy, its standard error clustered by `cluster`, what
        was not read (or the grader's figures), and accuracy per group."""
        own: list[Metric] = [unparsed()] if scored_as == "chosen" else grader_metrics()
        return [accuracy(), stderr(cluster=self.cluster), *own, *self.group_metrics()]

    def group_metrics(self) -> list[Metric]:
        """Accuracy per value of each group."""
        return [
            accuracy_by(g.key, f"{g.metric}_{{group_name}}", all_label=g.mean_of_values)
            for g in self.groups
        ]

    def label_words(self, settings: Settings) -> list[str]:
        """What a run's label adds about this version's own settings; by default none."""
        return []

    @abstractmethod
    def selection(self, arguments: Mapping[str, Any], task: str) -> str:
        """Which questions a run of `task` with these arguments (a log's, with its
        metadata) asked, in words: `32k`, `benchmark 32k` (the report's split)."""

    def report_sections(
        self, summaries: Sequence[RunSummary], report: ReportContext
    ) -> list[Section]:
        """This version's part of the report (its runs' `summaries`), in the page's
        order: by default the sections every version's runs get (`report.common`:
        overall, graders, judged runs, runs, accuracy per group, every estimate). A
        version with its own (published numbers, figures) builds them in its package."""
        return report.common(self, summaries)

    def published_names(self) -> tuple[str, ...]:
        """The published models a run may be compared with (the report's
        `--published-name MODEL=NAME`); none by default."""
        return ()
