"""A task's parameters and the checks of its arguments: the parameters every dataset
version shares (`SHARED`), in one list with the version's own and the axis values'
(`task_parameters`, `parameters`), and the checks that make each wrong argument a
one-line error before any data are read: values, a parameter of an unchosen axis value
set away from its default, a combination that means nothing, and a misspelt name (with
the one meant).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Final

from inspect_personamem.data.order import INTERLEAVE_BLOCK
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.prompts import own_prompt
from inspect_personamem.history.table import Prompted
from inspect_personamem.parameters import AxisValue, Parameter, Point, Settings, TaskSettings
from inspect_personamem.run.migration import LEGACY_METHODS


def _axis(name: str, default: str, table: Mapping[str, AxisValue[Any]], what: str) -> Parameter:
    """The parameter that picks one value of an axis; its help lists the values."""
    values = "; ".join(f"{value.name}: {value.summary}" for value in table.values())
    return Parameter(name, default, str, f"{what}. {values}.", table=table)


SYSTEM_MESSAGES = Parameter(
    "system_messages",
    "keep",
    str,
    "System messages inside the history: keep (as sent to gpt-4.1), merge (the "
    "official o-series conversion), or drop.",
    choices=("keep", "merge", "drop"),
)
KEEP_HISTORY_IN_LOG = Parameter(
    "keep_history_in_log",
    False,
    bool,
    "Keep the history in the logged messages after generation (it is always in the "
    "logged model call).",
    scoring=False,
)
ORDER = Parameter(
    "order",
    None,
    str,
    "Order the questions are sent in: interleaved (round-robin across blocks of "
    "contexts: the most prompt-cache hits), grouped (a local model reuses the previous "
    "question's attention cache), file or random; none takes the answer's "
    "(interleaved for choice, grouped for logprob). `--limit N` asks the first N in "
    "this order: give two runs the same order to ask them the same questions.",
    choices=("interleaved", "grouped", "file", "random"),
    scoring=False,
)
INTERLEAVE = Parameter(
    "interleave_block",
    INTERLEAVE_BLOCK,
    int,
    "order=interleaved: contexts round-robined at a time, at least (about the "
    "requests in flight); 0 round-robins across all contexts.",
    minimum=0,
    scoring=False,
)
SHARED: Final[tuple[Parameter, ...]] = (KEEP_HISTORY_IN_LOG, ORDER, INTERLEAVE)
"""The parameters every version's task takes after its own."""


def source_parameters(version: DatasetVersion[Any]) -> tuple[Parameter, ...]:
    """Where a version's files come from: a folder, else its environment variable,
    else its hub repository at its pinned revision."""
    return (
        Parameter(
            "data_dir",
            None,
            str,
            f"Local folder holding {version.data_dir_help}; else {version.data_dir_env}, "
            "else the hub.",
            scoring=False,
        ),
        Parameter("repo_id", version.repo_id, str, "Hugging Face dataset repository of the files."),
        Parameter("revision", version.revision, str, version.revision_help),
    )


def axes(version: DatasetVersion[Any]) -> tuple[Parameter, Parameter]:
    """The two axes' parameters, each taking the values `version` offers."""
    return (
        _axis("history", "full", version.histories, "What the model sees of the past"),
        _axis("answer", "choice", version.answers, "How the model answers"),
    )


def _values(version: DatasetVersion[Any]) -> tuple[AxisValue[Any], ...]:
    """Every axis value `version` offers, the history sources' first."""
    return (*version.histories.values(), *version.answers.values())


def task_parameters(version: DatasetVersion[Any]) -> tuple[Parameter, ...]:
    """A version's task parameters but the axis values' own, in the order its task
    takes them: which questions, where the files are, the axes, then the shared and the
    version's own."""
    return (
        *version.selectors,
        *source_parameters(version),
        *axes(version),
        SYSTEM_MESSAGES,
        *version.own,
        *SHARED,
    )


def parameters(version: DatasetVersion[Any]) -> dict[str, Parameter]:
    """Every parameter of a version's task by name, in the order the task takes them
    (read from the tables each time, so that an entry added to one counts at once):
    `task_parameters`, then the axis values' own."""
    found: dict[str, Parameter] = {p.name: p for p in task_parameters(version)}
    for value in _values(version):
        for parameter in value.parameters:
            if found.setdefault(parameter.name, parameter) is not parameter:
                raise RuntimeError(f"two parameters named {parameter.name}")  # pragma: no cover
    return found


def scoring_defaults(version: DatasetVersion[Any]) -> dict[str, Any]:
    """A version's task arguments that change what is scored -> their default (what a
    log that lacks one ran with)."""
    return {name: p.default for name, p in parameters(version).items() if p.scoring}


def owners(name: str, version: DatasetVersion[Any]) -> list[str]:
    """`history=rag`, `answer=logprob`, ...: the axis values of `version` that read a
    parameter."""
    return [
        f"{axis}={value.name}"
        for axis, table in (("history", version.histories), ("answer", version.answers))
        for value in table.values()
        if any(p.name == name for p in value.parameters)
    ]


def checked_settings(arguments: Settings, version: DatasetVersion[Any]) -> TaskSettings:
    """The run's settings (`TaskSettings`: its axis values, where its files are, what
    every version shares), built once, after checking every argument: its values
    (choices, type, bound), no parameter of an unchosen value set away from its default
    (it would silently change nothing), and a combination that means something, for the
    axes and for the version. Every error is one line, raised before any data are
    read."""
    declared = parameters(version)
    for name, value in arguments.items():
        declared[name].check(value)
    point = Point.of(arguments, version.histories, version.answers)
    chosen = {p.name for value in (point.history, point.answer) for p in value.parameters}
    ignored = sorted(
        p.name
        for value in _values(version)
        for p in value.parameters
        if p.name not in chosen and arguments[p.name] != p.default
    )
    if ignored:
        readers = "; ".join(
            f"{name}: {', '.join(owners(name, version))}" for name in dict.fromkeys(ignored)
        )
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter(s) {', '.join(dict.fromkeys(ignored))} have no effect "
            f"with history={point.history.name!r}, answer={point.answer.name!r} (read by "
            f"{readers}): leave them out"
        )
    if point.history.calls_tools and point.answer.writes_nothing:
        writing = " or ".join(
            repr(v.name) for v in version.answers.values() if not v.writes_nothing
        )
        raise PersonaMemArgumentError(
            f"PersonaMem task parameters history={point.history.name!r}, "
            f"answer={point.answer.name!r}: answer={point.answer.name!r} "
            f"{point.answer.writes_nothing}, so it cannot call the tools "
            f"history={point.history.name!r} offers; use answer={writing}"
        )
    settings = TaskSettings.of(arguments, point, version.settings)
    for why in (point.answer.refuses(settings.answer), point.history.refuses(settings.history)):
        if why:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameters history={point.history.name!r}, "
                f"answer={point.answer.name!r}: {why}"
            )
    _check_memory_prompt(settings, version)
    version.check(settings)
    return settings


def _check_memory_prompt(settings: TaskSettings, version: DatasetVersion[Any]) -> None:
    """A version's own prompt around retrieved items (`-T memory_prompt=NAME`) with an
    answer it is not written for."""
    if not isinstance(settings.history, Prompted):
        return
    prompt, answer = settings.history.memory_prompt, settings.point.answer.name
    own = own_prompt(version.memory_prompts, prompt)
    if own is not None and answer not in own.answers:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameters answer={answer!r}, "
            f"memory_prompt={prompt!r}: memory_prompt="
            f"{prompt!r} is {own.words}, a prompt for answer="
            f"{' or '.join(repr(a) for a in own.answers)} only: leave memory_prompt out"
        )


def all_arguments(
    named: Mapping[str, Any], unknown: Mapping[str, Any], version: DatasetVersion[Any]
) -> dict[str, Any]:
    """Every parameter's argument: those given, and every other at its default. A name
    no table declares is an error suggesting the one meant."""
    given = {**named, **unknown}
    for axis in ("history", "answer"):
        why = version.refused.get(f"{axis}={given.get(axis)}")
        if why:
            raise PersonaMemArgumentError(why)
    declared = parameters(version)
    check_unknown({k: v for k, v in unknown.items() if k not in declared}, version)
    return {name: given.get(name, p.default) for name, p in declared.items()}


def check_unknown(unknown: Mapping[str, Any], version: DatasetVersion[Any]) -> None:
    """Raise on arguments no table declares, suggesting the name meant (for version 1's
    `method`, what it is now)."""
    if not unknown:
        return
    if "method" in unknown:
        now = {m: " ".join(f"-T {k}={v}" for k, v in a.items()) for m, a in LEGACY_METHODS.items()}
        raise PersonaMemArgumentError(
            "PersonaMem task parameter method is gone (task version 2): what the model sees "
            "of the past is -T history=..., how it answers -T answer=...; "
            + "; ".join(f"method={m} is {now[m] or 'the default'}" for m in LEGACY_METHODS)
        )
    known = list(parameters(version))
    problems = []
    for name, value in unknown.items():
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        problems.append(f"{name}={value!r}{hint}")
    raise PersonaMemArgumentError(
        f"PersonaMem task has no parameter {'; '.join(problems)}. "
        f"Its parameters: {', '.join(known)}"
    )
