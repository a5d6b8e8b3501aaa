"""What the tools read of a dataset version, declared as data on its entry: what the
report shows of it (`DatasetVersion.reported`: the numbers published about it and which
of the report's layouts draws its part of the page), the cost estimate's requests
(`estimate`), the data `inspect-personamem try` writes (`trying`) and what the offline
models read of its files and prompts (`offline`). Each tool renders or runs them itself;
a version that declares nothing of one gets the report's common sections and is not
offered by the other tools.

The types sit here, beside the versions that fill them and below the tools that read
them, so that imports run one way: tools -> versions -> shared layers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage
from inspect_ai.tool import ToolInfo

from inspect_personamem.data.known import ChoicePrompt, KnownQuestions
from inspect_personamem.data.requests import GraderCalls, Request


@dataclass(frozen=True)
class PublishedModel:
    """A model's published numbers over one split: overall, per value of the question
    type group, per sessions elapsed."""

    name: str
    overall: float
    categories: dict[str, float] = field(default_factory=dict)
    sessions: dict[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PublishedMethod:
    """One number the authors give as text for a method (`paper/SOURCE.md`)."""

    model: str
    split: str
    measure: str
    """`macro` (mean over question types) or `overall` (question-weighted)."""
    method: str
    """`no history`, `full history`, `rag` or `memory (mem0)`: see `published_method`."""
    accuracy: float
    source: str


@dataclass(frozen=True)
class PublishedNumber:
    """One number published about a version: its paper's, or a vendor's, self-reported
    through its own harness."""

    kind: str
    """`paper` or `self-reported`."""
    system: str
    model: str
    """The answering model where the source names one, else empty."""
    low: float
    high: float
    """Equal to `low` for a single number; a range otherwise (a paper's frontier LLMs)."""
    source: str
    deviations: str
    """How its harness differs from the authors' protocol, as far as known."""

    @property
    def shown(self) -> str:
        """The number as a table shows it: `0.406` or `0.37-0.48`."""
        return f"{self.low:.3f}" if self.low == self.high else f"{self.low:.2f}-{self.high:.2f}"


@dataclass(frozen=True)
class Published:
    """Numbers published about a version, which the report sets its runs beside
    (`report/published.py`): never equated with them."""

    numbers: Callable[[], tuple[PublishedNumber, ...]]
    """The numbers, its paper's first (read when a report is drawn)."""
    note: str
    """What the table says of them: where they come from, why they are set beside
    (`{range}` stands for the range, where one is declared: `0.37-0.48`)."""
    range_system: str | None = None
    """The `system` of the number that is a range a run is placed against (below,
    inside, above); none where none is."""
    every_run_deviates: str = ""
    """How every run differs from the authors' protocol whatever its settings (an
    option order that cannot be repeated); empty where none does."""
    unchanged: str = "none"
    """What the deviations column says of a run with every setting at its default."""

    def range(self) -> PublishedNumber | None:
        """The number a run is placed against (`range_system`), if any."""
        if self.range_system is None:
            return None
        return next(p for p in self.numbers() if p.system == self.range_system)


@dataclass(frozen=True)
class PaperLayout:
    """A version whose part of the report follows its paper (`report/paper.py`): the
    paper's figures per question type, method and sessions elapsed, and the runs next
    to the numbers published per model and per method. Group keys name the entry's
    groups (`DatasetVersion.groups`)."""

    question_type: str
    """The group of question types (averaged: the macro average)."""
    topic: str
    sessions: str
    """The group of sessions elapsed, a number each."""
    sessions_bins: str
    """The same in bins."""
    along: str
    """The axis of sessions elapsed, in words."""
    split: str
    """The split the published tables are about: only runs of it are compared."""
    models: Callable[[], Mapping[str, PublishedModel]]
    """Published name -> that model's published numbers over `split`."""
    methods: Callable[[], tuple[PublishedMethod, ...]]
    """The numbers published per model, split and method."""
    method_of: Callable[[Mapping[str, str]], str | None]
    """The published method a run's settings are an instance of, or None."""
    default_names: Mapping[str, str]
    """Inspect model name -> published model name (exact, never guessed; a report's
    `--published-name MODEL=NAME` extends or overrides it, an empty NAME turns one off)."""

    def published_name(self, model: str, overrides: Mapping[str, str]) -> str | None:
        """The published name `model` is compared with, or None."""
        name = overrides.get(model, self.default_names.get(model))
        return name or None


@dataclass(frozen=True)
class BesideLayout:
    """A version whose part of the report sets its runs beside its published numbers
    (`report/beside.py`): a figure of them and of accuracy per value of one group, the
    runs judged against a label, and accuracy per value of every group."""

    by: str
    """The group the figure shows accuracy per value of."""


@dataclass(frozen=True)
class Reported:
    """What the report shows of a version beyond what every version's runs get."""

    layout: PaperLayout | BesideLayout | None = None
    """The layout its part of the page follows; none: the sections every version's
    runs get."""
    published: Published | None = None
    """Numbers published about it, set beside its runs; none by default (a
    `BesideLayout` needs them)."""
    cluster_words: str = ""
    """What its questions' errors are clustered by (`DatasetVersion.cluster`), in words
    for the overall table's note; by default the metadata key's name."""
    evidence_groups: tuple[str, ...] = ()
    """The group keys (`DatasetVersion.groups`) a retrieval run's found-against-used
    table is split by: a category and a distance; none by default."""
    earlier_evidence: str = ""
    """Where its evidence was located before its samples recorded the rule that located
    it (`Evidence.rule`), in words: the report notes a log whose samples record the
    evidence without its rule as made under that rule; empty where it never changed."""
    judged_note: str = ""
    """What the overall table adds about runs whose answers this version scores
    otherwise than the answer does (`scored_as`, `Run.judged`); none by default."""
    card_groups: tuple[str, ...] = ()
    """The group keys (`DatasetVersion.groups`) a results card shows a row per value
    of, in order; none: the averaged group (`mean_group`), else the first group."""
    at_a_glance: str | None = None
    """The group key (`DatasetVersion.groups`) whose accuracy per value the report's
    first screen shows under the summary, for this version's runs; none by default."""

    def __post_init__(self) -> None:
        if isinstance(self.layout, BesideLayout) and self.published is None:
            raise TypeError("a BesideLayout sets the runs beside published numbers: declare them")

    def published_names(self) -> tuple[str, ...]:
        """The published models a run may be compared with by name (the report's
        `--published-name MODEL=NAME`)."""
        return tuple(self.layout.models()) if isinstance(self.layout, PaperLayout) else ()


@dataclass(frozen=True)
class Where:
    """Where a tool finds a version's files, as its task does: a folder, else the
    version's environment variable, else the hub (the version's repository at its
    pinned revision, unless given); and the option naming the folder, which errors
    advise."""

    data_dir: str | Path | None = None
    repo_id: str | None = None
    revision: str | None = None
    data_dir_option: str = "--data-dir"


@dataclass(frozen=True)
class QuestionRequests:
    """What the cost estimate reads of a version: one request per question of the
    question file a selection names, in file order, and where the file came from."""

    label: str
    """Which questions, in words, for the estimate's first line (a split's name)."""
    source: str
    """`local folder ...` or `hf://datasets/{repo}@{revision}`."""
    data_release: str
    """How the question file compares with the released one, as a task records it."""
    requests: Sequence[Request]
    """Each question's history (its prefix) and all its input tokens, in file order."""
    grader: GraderCalls | None = None
    """The calls to the grader role the run makes (its judges'), where it makes any."""


@dataclass(frozen=True)
class ToolOption:
    """A command-line option of a tool that only some versions take (PersonaMem's
    `try --questions`)."""

    flag: str
    help: str
    type: Callable[[str], Any] = str
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        """Its name in argparse's namespace, and in the options a version is given."""
        return self.flag.removeprefix("--").replace("-", "_")


V = TypeVar("V")


def options_by_flag(
    owned: Iterable[tuple[V, Iterable[ToolOption]]],
) -> dict[str, tuple[ToolOption, list[V]]]:
    """Each flag of the options the versions `owned` declare for a tool -> its option and
    the versions taking it, in the order given (the first declaration of a flag stands)."""
    options: dict[str, tuple[ToolOption, list[V]]] = {}
    for version, declared in owned:
        for option in declared:
            options.setdefault(option.flag, (option, []))[1].append(version)
    return options


@dataclass(frozen=True)
class TrialRun:
    """One run `inspect-personamem try` makes of a version's task: its task arguments,
    the offline model answering and what it is told beside `try`'s own arguments."""

    task_args: Mapping[str, Any]
    model: str = "personamem/oracle"
    """`personamem/oracle` (given the question file and `try`'s `--accuracy`,
    `--accuracy-without-history`, `--decay` and `--seed`) or `personamem/floor`
    (given only `model_args`)."""
    model_args: Mapping[str, Any] = field(default_factory=dict)
    """The model's arguments, over `try`'s (`accuracy=1`: an oracle always right)."""
    graded: bool = False
    """Whether the oracle is bound to the grader role (its replies graded by it)."""
    needs: tuple[str, str] | None = None
    """A module the run needs and the package's extra that installs it (`("mcp",
    "memory")`); where it is not installed `try` skips the run and says so in one line.
    None: it needs nothing beyond the package."""


@dataclass(frozen=True)
class Trial:
    """The data a version writes for `inspect-personamem try`, and the task run on it."""

    task: str
    """The task to run (`inspect_personamem/<name>`)."""
    write: Callable[[Path], Path]
    """Writes the data into a folder (the task's `data_dir`); returns the question file
    the oracle reads (`-M questions=...`)."""
    described: str
    """What it writes, in words: `generated`, `real questions, generated histories`."""
    runs: tuple[TrialRun, ...] | None = None
    """The runs `try` makes; None: its own (the oracle choosing among options and
    answering openly, with and without the history, and the retrieval runs)."""


@dataclass(frozen=True)
class Estimate:
    """What the cost estimate reads of a version (`inspect-personamem estimate`)."""

    requests: Callable[[Mapping[str, Any], Where], QuestionRequests]
    """The question file `selected` (a value of each of its selectors, and of each of
    `options` by `dest`, None where not given) names, located as the task locates it
    and read alone (no history), how it compares with the release, and each question's
    request (its history's tokens and all its input tokens, answering by choice) in
    file order."""
    options: tuple[ToolOption, ...] = ()
    """The options of `estimate` only this version takes (PersonaMem-v3's `--history`)."""


@dataclass(frozen=True)
class Try:
    """What `inspect-personamem try` writes of a version, and runs."""

    writes: str
    """What it writes, in words (`a synthetic ... subset`)."""
    trial: Callable[[Mapping[str, Any], int, int], Trial]
    """What it writes (about `count` synthetic questions, from `seed`) and runs, given
    `(options, count, seed)`: `options` holds a value (None: not given) of each of
    `options` by `dest`, checked here, before anything is written."""
    options: tuple[ToolOption, ...] = ()
    """The options of `try` only this version takes (PersonaMem's real question file)."""


@dataclass(frozen=True)
class Offline:
    """What the offline models (`personamem/oracle`, `personamem/floor`) read of a
    version's question files and prompts."""

    files_named_by: str
    """The selector a question file's name tells (`split`: `questions_32k.csv`); the
    oracle reads a file of another name as this version's where given it
    (`-M split=32k`)."""
    steps: str
    """The steps the fact a question asks about lies back, in words: the oracle loses
    `-M decay` of its chance for each past the first."""
    named_selection: Callable[[Path], str | None]
    """The value of `files_named_by` a question file's name gives; None where the name
    is none of this version's question files'."""
    questions: Callable[[Path, Mapping[str, str]], KnownQuestions]
    """The question file at a path, read as `selected` (a value of each selector) says,
    as the oracle answers from it."""
    choice_prompt: Callable[[Sequence[ChatMessage]], ChoicePrompt | None]
    """The prompt this version's task sends with `answer=choice`, read for the floor;
    None where the input is none; a one-line error where it is one but its options
    cannot be read."""
    judge: Callable[[str, KnownQuestions], str | None] | None = None
    """The oracle's judgement, bound as the grader of this version's own judge prompts:
    given a prompt's text and the question file it reads (`questions`), the reply to
    send, or None where the prompt is none of this version's judges'; None: the version
    sends its grader no prompts of its own."""
    act: Callable[[KnownQuestions, Agentic], tuple[str, dict[str, Any]] | None] | None = None
    """The oracle's next tool call as an agent offered this version's own tools
    (PersonaMem-v3's apps), given the question file it reads and where the agent
    stands (`Agentic`): the call to make, or None once it has made every call it would
    (it then replies); None: the version offers no tools of its own."""
    question_file: Callable[[Mapping[str, Any], Sequence[Sample]], str] | None = None
    """The question file a task with these arguments reads (its path in the data
    folder), given the task's samples: what the one-line error of an oracle given none
    names (`-M questions=`); None: the error names none."""
    gold: Callable[[Sequence[Sample]], KnownQuestions] | None = None
    """What the oracle, bound as the grader without a question file, knows from the
    task's samples for this version's own judge prompts (`judge`); None: the version's
    grader needs no question file (its grader prompt shows the candidates) or the
    version sends its grader no prompts of its own."""
    write: Callable[[str], str | None] | None = None
    """The offline models' reply to this version's own memory writer's prompt (the
    reply of an offline writer, so that a memory setting runs offline), None where a
    prompt is none of its writer's; None: the version has no writer of its own."""


@dataclass(frozen=True)
class Agentic:
    """Where the offline oracle stands as an agent (`Offline.act`)."""

    prompt: Sequence[ChatMessage]
    """The messages the task sent (an agent's own system message included)."""
    exchange: Sequence[ChatMessage]
    """The tool calls it made since, with their results, in order."""
    tools: Sequence[ToolInfo]
    """The tools it is offered."""
    reply: str
    """The reply it gives once done (right with its chance): what a write it makes
    on the user's behalf says."""
