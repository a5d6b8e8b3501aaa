"""The one builder under every task (`run.tasks`): a task function's arguments checked
and completed (`task_arguments`), then its `Task` built from its dataset version and
the axis values it offers, through the run's settings built once
(`parameters.TaskSettings`, `build_task`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from inspect_ai import Task
from inspect_ai.dataset import Dataset
from inspect_ai.model import Model, get_model, model_roles

from inspect_personamem.data.order import order_records
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.offline_model import OfflineModel
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.seen import Past
from inspect_personamem.parameters import TaskSettings
from inspect_personamem.run.arguments import all_arguments, checked_settings
from inspect_personamem.run.facts import FACTS, run_facts
from inspect_personamem.run.viewer import HEADLINE, viewer_config

logger = logging.getLogger(__name__)

TASK_VERSION: Final = "2.5.0"
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
"""The catch-all of a task's signature (`**unknown`): any other name given is an error,
where Inspect would drop an argument the signature lacks with only a warning."""


def task_arguments(
    version: DatasetVersion[Any], called: Mapping[str, Any], fixed: str | None = None
) -> dict[str, Any]:
    """Every parameter's argument, from what a task function of `version` was called
    with (its `locals()`: its named parameters, and `UNKNOWN`'s mapping of any other
    name): a name no table declares is an error suggesting the one meant; a task that
    fixes `version.fixed` to `fixed` sets it, and refuses it given."""
    named = dict(called)
    unknown = named.pop(UNKNOWN)
    if fixed is not None:
        if version.fixed in unknown:
            raise PersonaMemArgumentError(
                f"{version.task}_{fixed} runs {version.fixed}={fixed}: leave out "
                f"{version.fixed}={unknown[version.fixed]!r}, or run "
                f"inspect_personamem/{version.task} -T {version.fixed}=..."
            )
        named[version.fixed] = fixed
    return all_arguments(named, unknown, version)


def build_task(version: DatasetVersion[Any], arguments: Mapping[str, Any]) -> Task:
    """The `Task` of a version's run: every argument checked first (one line each), then
    its data read and checked, the history source (the axis value the version offers)
    and the answer built, the questions ordered, and the version's samples
    (with what the answer adds to their metadata), scorer and metrics, and what
    `inspect view` shows of its log (`run.viewer`)."""
    settings = checked_settings(arguments, version)
    point, shared = settings.point, settings.shared
    _warn_of_relative_paths(arguments)
    loaded = version.load(settings.arguments, point.history.reads_history)
    past = Past(
        loaded.contexts,
        lambda metadata: version.evidence(metadata, loaded.contexts),
        version.memory_prompts,
    )
    see = point.history.builder(past, **settings.builder_arguments(point.history))
    solver = point.answer.builder(
        see,
        system_messages=shared.system_messages,
        keep_history_in_log=shared.keep_history_in_log,
        **settings.builder_arguments(point.answer),
    )
    ordered = order_records(loaded.questions, settings.order, shared.interleave_block)
    dataset = version.dataset(ordered, loaded, settings)
    if point.answer.sample_metadata is not None:
        ids = [str(sample.id) for sample in dataset]
        added = point.answer.sample_metadata(ids, settings.answer)
        for sample in dataset:
            sample.metadata = {**(sample.metadata or {}), **added[str(sample.id)]}
    _check_offline_models(version, settings, dataset)
    scored_as = version.scored_as(point.answer.scored_as, settings.arguments)
    scorer = version.scorer(settings)
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
            "revision": settings.source.revision,
            FACTS: run_facts(version, point, settings.arguments),
        },
    )


def _check_offline_models(
    version: DatasetVersion[Any], settings: TaskSettings, dataset: Dataset
) -> None:
    """Each offline model the eval building this task binds (the model under evaluation,
    or one bound to a role) checks it can serve there (`datasets.offline_model.OfflineModel`), so a
    recipe missing what it needs stops here in one line, before any sample runs. A task
    built outside an eval (a `Task` made in Python) has no model yet: nothing to check."""
    bound: list[tuple[str | None, Model | None]] = [(None, _evaluated())]
    for name, models in model_roles().items():
        bound.extend((name, model) for model in (models if isinstance(models, list) else [models]))
    for role, model in bound:
        if model is not None and isinstance(model.api, OfflineModel):
            model.api.check_task(role, version, settings, list(dataset))


def _evaluated() -> Model | None:
    """The model under evaluation where an eval is building the task (Inspect's ambient
    model, `get_model()`); None outside one."""
    try:
        return get_model()
    except ValueError:  # "No model specified": a task built outside an eval
        return None


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
