"""What a dataset version is: the one object a version adds to `datasets.registry`.

Its core, which every version implements: where its files come from and what is known of
the released ones (its spec), its own task parameters, the axis values it offers
(`histories`, `answers`: the shared ones by default, a value of its own added, one it
cannot take refused in one line), how its questions are read and checked (against the
run's `parameters.TaskSettings`), the history its questions are asked after
(`data.contexts.Contexts`) and where a question's evidence lies in it, how a question
becomes an Inspect `Sample` (its `choices` the options as shown), its scorer and metrics
per way of answering, and the groups its accuracy is reported by. What the tools around
the tasks read of it is declared as data (`datasets/declared.py`), each with a default:
what the report shows (`reported`), the cost estimate's requests (`estimate`), the data
`inspect-personamem try` writes (`trying`), what the offline models read (`offline`).
Tasks, report, estimate, `try`, oracle and floor read the entry; none names a version,
and nothing here imports them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from inspect_ai.dataset import Dataset
from inspect_ai.scorer import Metric, Scorer, accuracy, stderr

from inspect_personamem.answer.table import ANSWERS
from inspect_personamem.data.contexts import Contexts
from inspect_personamem.data.evidence import Evidence
from inspect_personamem.data.order import Queued
from inspect_personamem.data.release import Release, ReleasedFile
from inspect_personamem.datasets.declared import Estimate, Offline, Reported, Try
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.prompts import OwnPrompt
from inspect_personamem.history.table import HISTORIES
from inspect_personamem.parameters import (
    AxisValue,
    Parameter,
    Point,
    Settings,
    TaskSettings,
    settings_of,
)
from inspect_personamem.scoring.metrics import (
    accuracy_by,
    ci95,
    grader_metrics,
    unparsed,
)

CHOSEN = "chosen"
"""The `scored_as` of answers read as an option letter (an answer's default): the
share not read as one is a metric (`unparsed`)."""
JUDGED = "judged"
"""The `scored_as` of answers a judge scored against the label, 0 to 1 each (v2's
`judge=preference`): the report reads such a run's scores as a mean judge score."""


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
    suffix: str = ""
    """What each metric name ends with (`_ago`), for values that end in a digit: the
    viewer strips trailing digits from a breakdown's names (`sessions_1` and
    `sessions_2` would both read `sessions_`)."""

    def metric_name(self, value: str) -> str:
        """The log's metric of one value: `<metric>_<value><suffix>`."""
        return f"{self.metric}_{value}{self.suffix}"

    def legacy_name(self, value: str) -> str:
        """The name logs written before `suffix` gave the value (`<metric>_<value>`)."""
        return f"{self.metric}_{value}"


def option_flag(name: str) -> str:
    """A parameter's name as a tool's command-line option: `--interleave-block`."""
    return "--" + name.replace("_", "-")


C = TypeVar("C", bound=str)


def one_of(name: str, value: str, choices: tuple[C, ...]) -> C:
    """`value` typed as one of `choices`, or a one-line error: `name='x': choose one
    of ...` (a tool puts its own name before it)."""
    for known in choices:
        if value == known:
            return known
    raise PersonaMemArgumentError(f"{name}={value!r}: choose one of {', '.join(choices)}")


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


class DatasetVersion(ABC, Generic[Q]):
    """A released dataset version: one entry of `datasets.registry.VERSIONS`."""

    key: str
    """Its short name: the tools' `--dataset`."""
    release: Release
    """Its name in words and titles (`PersonaMem`), repository, pinned revision, licence."""
    task: str
    """Its task's name; a task per value of `fixed` adds `_<value>`."""
    summary: str
    """One line: what its questions ask (the task's docstring)."""
    data_dir_help: str
    """What a local folder (`-T data_dir`) holds."""
    data_dir_env: str
    """The environment variable naming that folder."""
    revision_help: str = "Revision of repo_id (pinned)."
    """What `-T revision` is, in its help: whether the default is a pinned commit."""
    selectors: tuple[Parameter, ...]
    """The parameters choosing which questions (`split`; `subset`, `length`): recorded
    apart from the settings, so not `scoring`."""
    fixed: str
    """The selector a task per value fixes (`personamem_32k`)."""
    own: tuple[Parameter, ...]
    """Its other parameters (`shuffle`, ...), after the shared `system_messages`."""
    settings: type[Any]
    """The typed object of its selectors and own parameters (a frozen dataclass, fields
    named as they are: `TaskSettings.version`, `own_settings`)."""
    groups: tuple[Group, ...]
    """What its accuracy is reported by, in the order the report shows them."""
    cluster: str
    """The sample metadata key its questions' errors are clustered by (the history
    they share)."""
    histories: Mapping[str, AxisValue[Any]] = MappingProxyType(HISTORIES)
    """`-T history=...`: the history sources it offers, by name; by default every one of
    `history.table`'s. A version adds its own (PersonaMem-v3's apps agent, defined in its
    folder) or leaves one out."""
    answers: Mapping[str, AxisValue[Any]] = MappingProxyType(ANSWERS)
    """`-T answer=...`: the ways of answering it offers; by default every one of
    `answer.table`'s. Its task takes the parameters of these values only."""
    refused: Mapping[str, str] = MappingProxyType({})
    """`axis=value` of the shared tables it does not offer -> the one-line error a run
    asking for it gets, before any other check (`answer=logprob`: why it has no meaning
    here); none by default."""
    memory_prompts: Mapping[str, OwnPrompt] = MappingProxyType({})
    """The whole prompts around retrieved items its history sources offer besides the
    official one (`-T memory_prompt=NAME`: PersonaMem's `paper`); none by default."""
    reported: Reported = Reported()
    """What the report shows of it beyond every version's sections (`report/layouts.py`):
    its layout, its published numbers and the notes its tables add; none by default."""
    estimate: Estimate | None = None
    """What the cost estimate reads of it; none: `estimate` does not offer it."""
    trying: Try | None = None
    """What `inspect-personamem try` writes of it; none: `try` does not offer it."""
    offline: Offline | None = None
    """What the offline models read of its files and prompts; none: they read none."""

    @property
    def name(self) -> str:
        return self.release.name

    @property
    def repo_id(self) -> str:
        return self.release.repo_id

    @property
    def revision(self) -> str:
        return self.release.revision

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
    def released_questions(self, selected: Mapping[str, str]) -> ReleasedFile:
        """What is known of the released question file the selectors pick (each one not
        in `selected` at its default)."""

    @abstractmethod
    def released_files(self, selected: Mapping[str, str]) -> dict[str, ReleasedFile]:
        """What is known of each released file the selectors pick (a value of each in
        `selected`), by its path in the release: what a results card says a run's data
        were checked against."""

    def released_rows(self, selected: Mapping[str, str]) -> str:
        """The questions of the released file the selectors pick, as a README lists them."""
        defaults = {p.name: str(p.default) for p in self.selectors}
        return f"{self.released_questions(defaults | dict(selected)).rows:,}"

    def own_settings(self, arguments: Settings) -> Any:
        """Its selectors' and own parameters' typed object (`settings`), of a run's
        arguments or a log's."""
        return settings_of(self.settings, arguments, (*self.selectors, *self.own))

    def check(self, settings: TaskSettings) -> None:
        """Raise a one-line error where the run's settings mean nothing for this version
        (beyond what every parameter and axis value checks); by default every argument
        the axes accept means something."""

    @abstractmethod
    def load(self, arguments: Settings, reads_history: bool) -> Loaded[Q]:
        """Locate, read and check the files the arguments select (the histories only
        where `reads_history`), each malformed cell a one-line error."""

    @abstractmethod
    def dataset(self, questions: Sequence[Q], loaded: Loaded[Q], settings: TaskSettings) -> Dataset:
        """The task's samples, in the order of `questions`: no label column, and no
        history, in what the model is sent."""

    @abstractmethod
    def evidence(self, metadata: Mapping[str, Any], contexts: Contexts) -> Evidence:
        """Where a question's evidence lies in its history, from its sample's metadata
        (for a run whose history source reads it, `AxisValue.reads_evidence`): what
        `history=evidence` shows and what retrieved items are checked against."""

    @abstractmethod
    def scorer(self, settings: TaskSettings) -> Scorer:
        """The run's scorer for its way of answering."""

    def prompts(self, point: Point, settings: Settings) -> dict[str, str]:
        """The fixed texts a run with these settings sends a model (instructions,
        templates, a grader's or judge's prompt), by where they are defined
        (`module.py:NAME`): a results card records each one's sha256. By default its
        history source's and answer's (`Point.prompts`); a version adds its own, and
        drops one where its scorer replaces the answer's (as `scorer` does)."""
        return point.prompts(settings)

    def scored_as(self, answer_scored_as: str, settings: Settings) -> str:
        """How the run's answers are scored: the answer's (`chosen`, `graded`), unless
        the version scores them otherwise (`JUDGED`: a judge's score from 0 to 1 against
        the label; PersonaMem-v3's `rules`: its own rules' scores, 0 to 1). The run's
        metrics follow it, and the report reads it from the log (`run/facts.py`)."""
        return answer_scored_as

    def metrics(self, scored_as: str) -> list[Metric | dict[str, list[Metric]]]:
        """The task's metrics: the result (`headline`), what was not read (or the
        grader's figures), and accuracy per group."""
        own: list[Metric] = [unparsed()] if scored_as == CHOSEN else grader_metrics(self.cluster)
        return [*self.headline(), *own, *self.group_metrics()]

    def headline(self) -> list[Metric]:
        """Accuracy, its 95% interval and its standard error, each clustered by
        `cluster`: the first of the viewer's header (`run/viewer.py`)."""
        return [accuracy(), ci95(self.cluster), stderr(cluster=self.cluster)]

    def group_metrics(self) -> list[Metric | dict[str, list[Metric]]]:
        """Accuracy per value of each group."""
        return [
            accuracy_by(
                accuracy(), g.key, g.metric_name("{group_name}"), g.mean_of_values, tuple(g.values)
            )
            for g in self.groups
        ]

    def label_words(self, settings: Settings) -> list[str]:
        """What a run's label adds about this version's own settings; by default none."""
        return []

    def refuses_selector(self, flag: str) -> str:
        """Why this version takes no `flag`, another version's selector as a tool's
        option (`--subset`): by default, the options it is chosen by."""
        flags = " and ".join(option_flag(p.name) for p in self.selectors)
        return f"{self.name} takes {flags}"

    def selection(self, arguments: Mapping[str, Any], task: str) -> str:
        """Which questions a run of `task` with these arguments (a log's, with its
        metadata) asked, in words: `32k`, `benchmark 32k` (the report's split). Each
        selector's value, from the arguments, else (the fixed one) the task's name,
        else `unknown`."""
        name = task.rsplit("/", 1)[-1]
        fixed = name.removeprefix(f"{self.task}_") if name != self.task else "unknown"
        return " ".join(
            str(arguments.get(p.name) or (fixed if p.name == self.fixed else "unknown"))
            for p in self.selectors
        )
