"""The schema of task parameters: one `Parameter`, one value of an axis (`AxisValue`),
the point a run's arguments chose on the two axes (`Point`), and a run's checked
arguments as one object (`TaskSettings`: the point, where the files are, what every
version shares, the chosen values' and the version's own parameters, each a typed
object built by `settings_of`).

The axes' tables (`history.table`, `answer.table`), the parameters every dataset version
shares (`run.arguments`) and each version's own (its entry in `datasets.registry`) are
written in these terms; the task signatures, `tasks.yaml`, the README's parameter tables
and the report's labels are read off them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.types import SampleOrder

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Kind = type[bool] | type[int] | type[str]
Settings = Mapping[str, Any]
"""A run's arguments by parameter name (as given to a task, or as text from a log)."""
S = TypeVar("S", bound="DataclassInstance")


@dataclass(frozen=True)
class Parameter:
    """One task parameter."""

    name: str
    default: Any
    kind: Kind
    help: str
    choices: tuple[Any, ...] = ()
    table: Mapping[str, AxisValue[Any]] | None = None
    """For an axis (`history`, `answer`): its table, whose names are the choices."""
    minimum: int | None = None
    scoring: bool = True
    """Whether a value other than the default changes what is scored (a report keys
    runs by these); False for where files are, what a log keeps, order and speed."""
    for_scorer: bool = False
    """Read in scoring (by its axis value's `scorer` or `sample_metadata`), not by its
    builder."""
    says_how: bool = False
    """A version's own parameter that says how a run answered or was judged, as the
    axes do (a version's judge), not which questions it was asked or how they
    were put: a report groups runs that differ only in these."""

    @property
    def allowed(self) -> tuple[Any, ...]:
        """The values it takes, where they are a list (empty: any of its kind)."""
        return tuple(self.table) if self.table is not None else self.choices

    def read(self, value: Any) -> Any:
        """`value` as this parameter's kind: a log keeps its arguments as text."""
        if not isinstance(value, str) or self.kind is str:  # a text stays as given
            return value
        if value == "None" and self.default is None:
            return None
        return value == "True" if self.kind is bool else int(value)

    def check(self, value: Any) -> None:
        """Raise a one-line error naming the parameter if `value` is not one of its."""
        if value is None and self.default is None:  # None is a value where it is the default
            return
        if self.allowed and value not in self.allowed:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {self.name}={value!r}: choose one of "
                f"{', '.join(map(str, self.allowed))}"
            )
        if type(value) is not self.kind:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {self.name}={value!r}: {_KIND_NAMES[self.kind]} needed"
            )
        if self.minimum is not None and int(value) < self.minimum:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter {self.name}={value!r}: must be at least "
                f"{self.minimum}"
                + (" (leave it out for the default)" if self.default is None else "")
            )


_KIND_NAMES: dict[Kind, str] = {bool: "true or false", int: "an integer", str: "a string"}


def settings_of(cls: type[S], arguments: Settings, parameters: Iterable[Parameter] = ()) -> S:
    """`cls`, a dataclass whose fields are named as parameters, holding their arguments:
    a task's (every one given), or a log's (as text, read as each of `parameters`' kind;
    one the log lacks at its default)."""
    declared = {p.name: p for p in parameters}
    values = {}
    for name in (f.name for f in fields(cls)):
        parameter = declared.get(name)
        if parameter is None:
            values[name] = arguments[name]
        else:
            values[name] = parameter.read(arguments.get(name, parameter.default))
    return cls(**values)


def check_fields(cls: type[DataclassInstance], parameters: Iterable[Parameter], of: str) -> None:
    """Raise unless `cls`'s fields are named as `parameters` are (a typed object of
    them, `settings_of`)."""
    named, declared = {f.name for f in fields(cls)}, {p.name for p in parameters}
    if named != declared:
        raise TypeError(f"{of}: {cls.__name__} has fields {named}, its parameters {declared}")


@dataclass(frozen=True)
class NoSettings:
    """The settings of an axis value without parameters of its own."""


def _never(settings: object) -> str | None:
    return None


def _no_words(settings: object) -> str:
    return ""


def _no_prompts(settings: object) -> Mapping[str, str]:
    return {}


@dataclass(frozen=True)
class AxisValue(Generic[S]):
    """One value of an axis: what it does, its own parameters, how it is built.

    A history value's `builder` takes the run's histories and evidence rule
    (`history.seen.Past`) and its own parameters, and returns an async function from a
    sample's state to `history.seen.Seen`. An answer value's takes that function, `system_messages`,
    `keep_history_in_log` and its own parameters, and returns the Inspect solver. Its
    functions of a run's settings take its own parameters' typed object (`settings`).
    """

    name: str
    summary: str
    builder: Callable[..., Any]
    settings: type[S]
    """The typed object of its own parameters (a frozen dataclass, fields named as
    `parameters`; `NoSettings` where it has none)."""
    parameters: tuple[Parameter, ...] = ()
    label: Callable[[S], str] = _no_words
    """Its words in a report's run label, from a run's settings (empty: none)."""
    order: SampleOrder | None = None
    """The question order that suits it, where it has one (an answer's wins)."""
    refuses: Callable[[S], str | None] = field(default=_never)
    """Why it cannot run with these settings (the other axis's, the model roles bound),
    or None."""
    scorer: Callable[[S], Any] | None = None
    """An answer's own scorer, where it has one, from the run's settings; None: the
    official scorer."""
    sample_metadata: Callable[[Sequence[str], S], Mapping[str, Mapping[str, Any]]] | None = None
    """What an answer adds to each sample's metadata, by question id, from the run's
    question ids and settings (open answers: how each question is graded, so that a
    re-grade reads it from the log); None: nothing."""
    scored_as: str = "chosen"
    """An answer's: how its answers are scored, `chosen` (a letter read) or `graded`
    (a grader's verdict); the metrics a dataset version sets follow it."""
    reads_history: bool = True
    """A history source's: whether it reads the history files (a run without them
    needs none)."""
    calls_tools: bool = False
    """A history source's: whether the model reads the history through tool calls, which
    an answer under which it writes nothing (`writes_nothing`) leaves it no turn to make."""
    writes_nothing: str = ""
    """An answer's: why the model writes nothing under it, where it does not (a history
    read through tool calls, `calls_tools`, refuses it); empty: the model writes."""
    reads_evidence: bool = False
    """A history source's: whether it reads where each question's evidence lies (to
    show it, or to check retrieved items against it): the samples then carry what the
    version locates it by (`DatasetVersion.evidence`)."""
    metrics: Callable[[], list[Any]] = field(default=list)
    """The metrics it adds to its version's (a history source's: retrieval's recall
    and latency)."""
    upper_bound: bool = False
    """A history source's: whether it shows what no method can be given (each question's
    evidence, located by its label): a ceiling for the methods, which a report labels
    as such and never sets beside published numbers."""
    prompts: Callable[[S], Mapping[str, str]] = field(default=_no_prompts)
    """The fixed texts it sends a model (instructions, templates, a grader's prompt),
    from a run's settings, by where they are defined (`module.py:NAME`): a results card
    records each one's sha256."""

    def __post_init__(self) -> None:
        check_fields(self.settings, self.parameters, f"{self.name}'s settings")

    def own(self, arguments: Settings) -> S:
        """Its own parameters' typed object, of a run's arguments (or a log's)."""
        return settings_of(self.settings, arguments, self.parameters)


@dataclass(frozen=True)
class Point:
    """The axis values a run's arguments chose."""

    history: AxisValue[Any]
    answer: AxisValue[Any]

    @classmethod
    def of(
        cls,
        settings: Settings,
        histories: Mapping[str, AxisValue[Any]],
        answers: Mapping[str, AxisValue[Any]],
    ) -> Point:
        """The values a run's settings (its arguments, or a log's) chose in a version's
        tables (`DatasetVersion.histories`, `answers`)."""
        return cls(histories[str(settings["history"])], answers[str(settings["answer"])])

    @property
    def order(self) -> SampleOrder:
        return self.answer.order or self.history.order or "interleaved"

    def prompts(self, arguments: Settings) -> dict[str, str]:
        """The fixed texts its history source and answer send (`AxisValue.prompts`)."""
        history, answer = self.history, self.answer
        return {**history.prompts(history.own(arguments)), **answer.prompts(answer.own(arguments))}

    def label(self, arguments: Settings) -> list[str]:
        """Its history source's and answer's words in a run's label (`AxisValue.label`)."""
        history, answer = self.history, self.answer
        return [history.label(history.own(arguments)), answer.label(answer.own(arguments))]


@dataclass(frozen=True)
class Source:
    """Where a version's files come from: a folder (None: its environment variable, else
    the hub), its hub repository, and the revision read."""

    data_dir: str | None
    repo_id: str
    revision: str


@dataclass(frozen=True)
class Shared:
    """How every version's run sends and orders its questions."""

    system_messages: str
    keep_history_in_log: bool
    order: SampleOrder | None
    """None: the point's (`Point.order`)."""
    interleave_block: int


@dataclass(frozen=True)
class TaskSettings:
    """A run's arguments, checked and completed, as one object its task builds once
    (`run.arguments.checked_settings`) and hands to its version and the axes: the axis
    values chosen, where the files are, what every version shares, the chosen history
    source's, answer's and version's own parameters (each a typed object, `typed`), and
    every argument by name as Inspect logs it (which labels and facts are made of)."""

    point: Point
    source: Source
    shared: Shared
    history: Any
    """The history source's own parameters (`AxisValue.settings`)."""
    answer: Any
    """The answer's own parameters (`AxisValue.settings`)."""
    version: Any
    """The version's own parameters and selectors (`DatasetVersion.settings`)."""
    arguments: Mapping[str, Any]

    @classmethod
    def of(
        cls, arguments: Settings, point: Point, version: type[DataclassInstance]
    ) -> TaskSettings:
        """The settings of a task's checked arguments (every parameter's), its version's
        own parameters in `version` (`DatasetVersion.settings`)."""
        return cls(
            point,
            settings_of(Source, arguments),
            settings_of(Shared, arguments),
            point.history.own(arguments),
            point.answer.own(arguments),
            settings_of(version, arguments),
            MappingProxyType(dict(arguments)),
        )

    @property
    def order(self) -> SampleOrder:
        """The order its questions are sent in: the one given, else the point's."""
        return self.shared.order or self.point.order

    def typed(self, cls: type[S]) -> S:
        """Its history source's, answer's or version's own parameters, the one of type
        `cls` (a `TypeError` where none is: a version reading a value it did not offer)."""
        for own in (self.history, self.answer, self.version):
            if isinstance(own, cls):
                return own
        raise TypeError(f"no {cls.__name__} in the settings of {self.point}")  # pragma: no cover

    def builder_arguments(self, value: AxisValue[Any]) -> dict[str, Any]:
        """The arguments of an axis value's own parameters that its builder reads."""
        own = value.own(self.arguments)
        return {p.name: getattr(own, p.name) for p in value.parameters if not p.for_scorer}

    def answer_scorer(self) -> Any:
        """The answer's own scorer, or None where it has none."""
        scorer = self.point.answer.scorer
        return None if scorer is None else scorer(self.answer)


def changed(parameters: Sequence[Parameter], **values: Any) -> list[str]:
    """Those of `values` (typed settings' fields, by parameter name) that differ from
    their parameters' defaults, as text (for labels: `rag (bm25, top 4)`)."""
    defaults = {p.name: str(p.default) for p in parameters}
    return [str(value) for name, value in values.items() if str(value) != defaults[name]]
