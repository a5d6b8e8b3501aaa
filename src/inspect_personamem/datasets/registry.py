"""The dataset versions, one entry each: what the tasks, the report, the estimate,
`inspect-personamem try` and the offline models read.

Adding a version is one package under `datasets/` (its spec, reader, samples and
scorers around one `DatasetVersion`, and what the tools read of it declared as data:
`datasets/declared.py`) and one line here.
"""

from __future__ import annotations

from typing import Any, Final

from inspect_personamem.datasets import base
from inspect_personamem.datasets.v1 import version as v1
from inspect_personamem.datasets.v2 import version as v2
from inspect_personamem.datasets.v3 import version as v3
from inspect_personamem.errors import PersonaMemArgumentError

VERSIONS: Final[dict[str, base.DatasetVersion[Any]]] = {
    entry.key: entry for entry in (v1.VERSION, v2.VERSION, v3.VERSION)
}
"""Every dataset version by its short name (`--dataset`), the first the default."""


def version_of_task(task: str) -> base.DatasetVersion[Any] | None:
    """The version whose task `task` names (with or without the package prefix)."""
    name = task.rsplit("/", 1)[-1]
    return next((v for v in VERSIONS.values() if name in v.task_names), None)


def version(key: str) -> base.DatasetVersion[Any]:
    """The version of short name `key`, or a one-line error naming the others."""
    if key not in VERSIONS:
        raise PersonaMemArgumentError(
            f"no dataset version {key!r}: choose one of {', '.join(VERSIONS)}"
        )
    return VERSIONS[key]
