"""Where each question's evidence lies, as a run that reads it locates it: for tests
that check what the evidence runs show and what the retrieval runs find."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_personamem.data.evidence import Evidence
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.run.arguments import all_arguments, checked_settings


def located(key: str, data: Path, **task_args: Any) -> dict[str, tuple[dict[str, Any], Evidence]]:
    """Sample id -> (its metadata, its evidence) in a `history=evidence` run of version
    `key` on `data` (the task's other arguments `task_args`), as the task builds them."""
    version = VERSIONS[key]
    given = {"data_dir": str(data), "history": "evidence", **task_args}
    arguments = all_arguments(given, {}, version)
    settings = checked_settings(arguments, version)
    loaded = version.load(arguments, True)
    dataset = version.dataset(loaded.questions, loaded, settings)
    return {
        str(sample.id): (metadata, version.evidence(metadata, loaded.contexts))
        for sample in dataset
        for metadata in [dict(sample.metadata or {})]
    }
