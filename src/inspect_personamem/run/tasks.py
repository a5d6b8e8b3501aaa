"""The tasks, built from the registry of dataset versions and the axis tables.

Each version gives a task named after it, taking its selectors (`split`; `subset`,
`length`), and one task per value of the selector it fixes (`personamem_32k`,
`personamem_1M`). A task's signature is read off its parameters
(`run.arguments.parameters`), so Inspect, `tasks.yaml` and the README list the same
ones; one function builds every task's `Task`.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from inspect_ai import Task, task

from inspect_personamem.data.order import order_records
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.seen import Past
from inspect_personamem.parameters import Parameter
from inspect_personamem.run.arguments import all_arguments, checked_point, parameters
from inspect_personamem.run.facts import FACTS, run_facts
from inspect_personamem.run.viewer import HEADLINE, viewer_config

logger = logging.getLogger(__name__)

TASK_VERSION: Final = "2.3.0"
"""Version of the tasks (`Task(version=...)`, in every log): bumped when what is scored
or how can change; see docs/changelog.md."""

PATHS: Final[dict[str, tuple[str, ...]]] = {
    "data_dir": (),
    "memory_config": (),
    "embedding_cache": ("none",),
}
"""Task parameters naming a file or folder -> their values that name none."""
FOLDERS_OR_NAMES: Final = frozenset({"embedder"})
"""Task parameters naming a local folder or a model (a hub id): a path only where it
names an existing folder."""

UNKNOWN: Final = "unknown"
"""The catch-all of a task's signature: any other name given is an error, where Inspect
would drop an argument the signature lacks with only a warning."""


def build_task(version: DatasetVersion[Any], arguments: Mapping[str, Any]) -> Task:
    """The `Task` of a version's run: every argument checked first (one line each), then
    its data read and checked, the history source and the answer built from the axis
    tables, the questions ordered, and the version's samples (with what the answer adds
    to their metadata), scorer and metrics, and what `inspect view` shows of its log
    (`run.viewer`)."""
    point = checked_point(arguments, version)
    _warn_of_relative_paths(arguments)
    loaded = version.load(arguments, point.history.reads_history)
    past = Past(loaded.contexts, lambda metadata: version.evidence(metadata, loaded.contexts))
    see = point.history.builder(past, **point.own(point.history, arguments))
    solver = point.answer.builder(
        see,
        system_messages=arguments["system_messages"],
        keep_history_in_log=arguments["keep_history_in_log"],
        **point.own(point.answer, arguments),
    )
    ordered = order_records(
        loaded.questions, arguments["order"] or point.order, arguments["interleave_block"]
    )
    dataset = version.dataset(ordered, loaded, arguments, point)
    if point.answer.sample_metadata is not None:
        added = point.answer.sample_metadata([str(sample.id) for sample in dataset], arguments)
        for sample in dataset:
            sample.metadata = {**(sample.metadata or {}), **added[str(sample.id)]}
    scored_as = version.scored_as(point.answer.scored_as, arguments)
    scorer = version.scorer(point, arguments)
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=scorer,
        metrics=[*version.metrics(scored_as), *point.history.metrics()],
        headline_metric=HEADLINE,
        viewer=viewer_config(scorer),
        version=TASK_VERSION,
        metadata={
            **loaded.metadata,
            "history": point.history.name,
            "answer": point.answer.name,
            "dataset": version.name,
            "revision": arguments["revision"],
            FACTS: run_facts(version, point, arguments),
        },
    )


def _warn_of_relative_paths(arguments: Mapping[str, Any]) -> None:
    """Warn where an argument names a file or folder by a relative path: Inspect logs
    task arguments as given, and `inspect eval-retry` creates the task again from them,
    so a retry from another folder would find another file or none."""
    relative = [
        f"{name}={value}"
        for name, value in arguments.items()
        if isinstance(value, str) and not Path(value).is_absolute() and _names_a_path(name, value)
    ]
    if relative:
        logger.warning(
            f"{', '.join(relative)}: relative to {Path.cwd()}. Inspect logs task arguments as "
            "given: retry this run (inspect eval-retry) from this folder, or pass absolute "
            "paths to retry it from anywhere."
        )


def _names_a_path(name: str, value: str) -> bool:
    """Whether a task argument names a file or folder (`PATHS`, `FOLDERS_OR_NAMES`)."""
    if name in PATHS:
        return value not in PATHS[name]
    return name in FOLDERS_OR_NAMES and Path(value).is_dir()


def task_function(version: DatasetVersion[Any], fixed: str | None = None) -> Callable[..., Task]:
    """A version's task as Inspect registers it: `fixed` None takes every selector;
    else the selector `version.fixed` is fixed to `fixed` and left out of the signature."""
    name = version.task if fixed is None else f"{version.task}_{fixed}"
    declared = parameters(version)
    taken = [p for p in declared.values() if fixed is None or p.name != version.fixed]

    def task_of(*args: Any, **kwargs: Any) -> Task:
        given = dict(signature.bind(*args, **kwargs).arguments)
        unknown = given.pop(UNKNOWN, {})
        if fixed is not None:
            if version.fixed in unknown:
                raise PersonaMemArgumentError(
                    f"{name} runs {version.fixed}={fixed}: leave out {version.fixed}="
                    f"{unknown[version.fixed]!r}, or run inspect_personamem/{version.task} "
                    f"-T {version.fixed}=..."
                )
            given[version.fixed] = fixed
        return build_task(version, all_arguments(given, unknown, version))

    signature = inspect.Signature(
        [_signature_parameter(p) for p in taken]
        + [inspect.Parameter(UNKNOWN, inspect.Parameter.VAR_KEYWORD, annotation=Any)],
        return_annotation=Task,
    )
    task_of.__signature__ = signature  # type: ignore[attr-defined]
    task_of.__name__ = task_of.__qualname__ = name
    task_of.__doc__ = _docstring(version, fixed, taken)
    return task(name=name)(task_of)


def _signature_parameter(parameter: Parameter) -> inspect.Parameter:
    """A task parameter as the signature lists it."""
    annotation = parameter.kind if parameter.default is not None else parameter.kind | None
    return inspect.Parameter(
        parameter.name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=parameter.default,
        annotation=annotation,
    )


def _docstring(version: DatasetVersion[Any], fixed: str | None, taken: list[Parameter]) -> str:
    """The task's docstring: the version's summary and every parameter's help."""
    what = version.summary if fixed is None else f"{version.summary} ({version.fixed}={fixed})"
    lines = [what, "", "Args:"]
    lines += [f"    {p.name}: {p.help}" for p in taken]
    lines.append(f"    **{UNKNOWN}: No other argument is taken: any other name is an error.")
    return "\n".join(lines)


def version_tasks(version: DatasetVersion[Any]) -> dict[str, Callable[..., Task]]:
    """A version's tasks by name (`DatasetVersion.task_names`), registered with Inspect:
    its task, and one per value of the selector it fixes."""
    functions = [task_function(version), *(task_function(version, v) for v in version.fixed_values)]
    return dict(zip(version.task_names, functions, strict=True))


TASKS: Final[dict[str, Callable[..., Task]]] = {
    name: function
    for version in VERSIONS.values()
    for name, function in version_tasks(version).items()
}
"""Every task by name, as Inspect registers it."""
