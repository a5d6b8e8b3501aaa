"""What every offline model of the package is (`personamem/oracle`, `personamem/floor`):
one that checks, as a task is built, that it can serve the role it is bound to there."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample

    from inspect_personamem.datasets.base import DatasetVersion
    from inspect_personamem.parameters import TaskSettings


class OfflineModel(ABC):
    """An offline model of the package (`personamem/oracle`, `personamem/floor`): it
    checks, as each task is built (`run.build`), that it can serve the role it is bound
    to there with what it was given, and raises a one-line error naming the fix where it
    cannot, before any sample runs. A version's scorer may send such a grader an offline
    stand-in's prompt where no faithful judge exists (PersonaMem-v3's
    `judges.stand_in`), which no real grader is ever sent."""

    @abstractmethod
    def check_task(
        self,
        role: str | None,
        version: DatasetVersion[Any],
        settings: TaskSettings,
        samples: Sequence[Sample],
    ) -> None:
        """Raise where this model cannot serve `role` (None: the model under evaluation)
        in the task of `version` with `settings` over `samples`; it may keep what it
        reads of them (the oracle as a grader: the gold of the judged replies)."""
