"""The 31 task types in the paper's Figure 4 order, by name (`TASK_TYPES`): what the
pipeline reads by default wherever it takes a registry (`TaskTypes`), so that a test can
run one more type end to end without editing any module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from inspect_personamem.datasets.v3.release.families import Family
from inspect_personamem.datasets.v3.rules.ranking import Slate
from inspect_personamem.datasets.v3.task_types import (
    agentic_proactiveness,
    agentic_tasks,
    over_personalization,
    personalization,
    recommendation,
)
from inspect_personamem.datasets.v3.task_types.base import TaskType

TaskTypes = Mapping[str, TaskType]
"""A registry of task types by name."""

TASK_TYPES: Final[TaskTypes] = {
    task.name: task
    for task in (
        *personalization.TYPES,
        *recommendation.TYPES,
        *over_personalization.TYPES,
        *agentic_tasks.TYPES,
        *agentic_proactiveness.TYPES,
    )
}
"""The 31 task types in Figure 4's order, by name."""

RANKING_TASKS: Final = frozenset(
    name for name, task in TASK_TYPES.items() if isinstance(task.scorer, Slate)
)
"""The three tasks whose headline is graded NDCG@5 over a slate (`THREE` in the authors'
recompute_ndcg.py@8e2a111f), scored by a `rules.ranking.Slate`."""


def tasks_of(family: Family, task_types: TaskTypes = TASK_TYPES) -> tuple[str, ...]:
    """The task types of `family`, in Figure 4's order."""
    return tuple(name for name, task in task_types.items() if task.family == family)


def task_accuracy(
    task_type: str,
    metrics: Mapping[str, object],
    status: str = "ok",
    task_types: TaskTypes = TASK_TYPES,
) -> float | None:
    """A row's metrics on the authors' 0-100 under its task type's headline (None for a
    task type not in the registry, as the authors skip an unregistered one)."""
    task = task_types.get(task_type)
    return None if task is None else task.headline.accuracy(metrics, status)
