"""The schema of task parameters: one `Parameter`, one value of an axis (`AxisValue`),
the point a run's arguments chose on the two axes (`Point`), and a run's checked
arguments as one object (`TaskSettings`: the point, where the files are, what every
version shares).

The axes' tables (`history.table`, `answer.table`), the parameters every dataset version
shares (`run.arguments`) and each version's own (its entry in `datasets.registry`) are
written in these terms; the task signatures, `tasks.yaml`, the README's parameter tables
and the report's labels are read off them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.types import SampleOrder

Kind = type[bool] | type[int] | type[str]
Settings = Mapping[str, Any]
"""A run's arguments by parameter name (as given to a task, or as text from a log)."""


@dataclass(frozen=True)
class Parameter:
    """One task parameter."""

    name: str
    default: Any
    kind: Kind
    help: str
    choices: tuple[Any, ...] = ()
    table: Mapping[str, AxisValue] | None = None
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


def _never(settings: Settings) -> str | None:
    return None


def _no_words(settings: Settings) -> str:
    return ""


def _no_prompts(settings: Settings) -> Mapping[str, str]:
    return {}


@dataclass(frozen=True)
class AxisValue:
    """One value of an axis: what it does, its own parameters, how it is built.

    A history value's `builder` takes the run's histories and evidence rule
    (`history.seen.Past`) and its own parameters, and returns an async function from a
    sample's state to `history.seen.Seen`. An answer value's takes that function, `system_messages`,
    `keep_history_in_log` and its own parameters, and returns the Inspect solver.
    """

    name: str
    summary: str
    builder: Callable[..., Any]
    parameters: tuple[Parameter, ...] = ()
    label: Callable[[Settings], str] = _no_words
    """Its words in a report's run label, from a run's settings (empty: none)."""
    order: SampleOrder | None = None
    """The question order that suits it, where it has one (an answer's wins)."""
    refuses: Callable[[Settings], str | None] = field(default=_never)
    """Why it cannot run with these settings (the other axis's, the model roles bound),
    or None."""
    scorer: Callable[[Settings], Any] | None = None
    """An answer's own scorer, where it has one, from the run's settings; None: the
    official scorer."""
    sample_metadata: Callable[[Sequence[str], Settings], Mapping[str, Mapping[str, Any]]] | None = (
        None
    )
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
    prompts: Callable[[Settings], Mapping[str, str]] = field(default=_no_prompts)
    """The fixed texts it sends a model (instructions, templates, a grader's prompt),
    from a run's settings, by where they are defined (`module.py:NAME`): a results card
    records each one's sha256."""


@dataclass(frozen=True)
class Point:
    """The axis values a run's arguments chose."""

    history: AxisValue
    answer: AxisValue

    @classmethod
    def of(
        cls,
        settings: Settings,
        histories: Mapping[str, AxisValue],
        answers: Mapping[str, AxisValue],
    ) -> Point:
        """The values a run's settings (its arguments, or a log's) chose in a version's
        tables (`DatasetVersion.histories`, `answers`)."""
        return cls(histories[str(settings["history"])], answers[str(settings["answer"])])

    @property
    def order(self) -> SampleOrder:
        return self.answer.order or self.history.order or "interleaved"

    def own(self, value: AxisValue, arguments: Settings) -> dict[str, Any]:
        """The arguments of `value`'s own parameters that its builder reads."""
        return {p.name: arguments[p.name] for p in value.parameters if not p.for_scorer}

    def prompts(self, arguments: Settings) -> dict[str, str]:
        """The fixed texts its history source and answer send (`AxisValue.prompts`)."""
        return {**self.history.prompts(arguments), **self.answer.prompts(arguments)}

    def answer_scorer(self, arguments: Settings) -> Any:
        """The answer's own scorer, or None where it has none."""
        if self.answer.scorer is None:
            return None
        return self.answer.scorer(arguments)


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
    values chosen, where the files are, what every version shares, and every argument
    by name as Inspect logs it (which each axis value's and the version's own
    parameters are read from, and labels and facts are made of)."""

    point: Point
    source: Source
    shared: Shared
    arguments: Mapping[str, Any]

    @classmethod
    def of(cls, arguments: Settings, point: Point) -> TaskSettings:
        """The settings of a task's checked arguments (every parameter's)."""
        return cls(
            point,
            Source(arguments["data_dir"], arguments["repo_id"], arguments["revision"]),
            Shared(
                arguments["system_messages"],
                arguments["keep_history_in_log"],
                arguments["order"],
                arguments["interleave_block"],
            ),
            MappingProxyType(dict(arguments)),
        )

    @property
    def order(self) -> SampleOrder:
        """The order its questions are sent in: the one given, else the point's."""
        return self.shared.order or self.point.order

    def own(self, value: AxisValue) -> dict[str, Any]:
        """The arguments of an axis value's own parameters that its builder reads."""
        return self.point.own(value, self.arguments)

    def answer_scorer(self) -> Any:
        """The answer's own scorer, or None where it has none (`Point.answer_scorer`)."""
        return self.point.answer_scorer(self.arguments)


def changed(settings: Settings, parameters: Sequence[Parameter], *names: str) -> list[str]:
    """The values, in a run's settings, of those of `parameters` named in `names` that
    differ from their defaults (for labels: `rag (bm25, top 4)`)."""
    defaults = {p.name: str(p.default) for p in parameters}
    return [str(settings[n]) for n in names if str(settings[n]) != defaults[n]]
