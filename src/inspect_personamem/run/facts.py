"""What a later reader of a run's log needs to know of how it ran, written into the
log (the task's metadata, under `FACTS`) when the task is built.

A report or results card made by a later version of the package reads these from the
log rather than from its own prompts and axis tables, which may have changed since:
each fixed text's sha256 by where it is defined, how answers are scored, whether the
run is an upper bound, the scoring defaults in force and the rule that locates a
question's evidence. A log made before tasks wrote them is described by the installed
package, and the report says so (`report/read/runs.py`).
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping
from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.parameters import Point, Settings
from inspect_personamem.run.arguments import scoring_defaults

FACTS = "facts"
"""The task metadata key holding a run's facts (`run_facts`)."""


def prompt_digests(texts: Mapping[str, str]) -> dict[str, str]:
    """The sha256 of each fixed text, by where it is defined (`module.py:NAME`), sorted."""
    return {name: hashlib.sha256(texts[name].encode()).hexdigest() for name in sorted(texts)}


def evidence_rule(version: DatasetVersion[Any]) -> str:
    """How `version` locates a question's evidence, in words: its `evidence`'s own
    account of its rule, on one line."""
    return " ".join((inspect.getdoc(type(version).evidence) or "").split())


def run_facts(version: DatasetVersion[Any], point: Point, settings: Settings) -> dict[str, Any]:
    """A run's facts (`FACTS`): its prompts' digests, how its answers are scored
    (`scored_as`; `judged` where its version scores them otherwise than its answer),
    whether it is an upper bound, the scoring defaults in force (as text, as a log's
    settings are read) and its version's evidence rule."""
    scored_as = version.scored_as(point.answer.scored_as, settings)
    return {
        "prompts": prompt_digests(version.prompts(point, settings)),
        "scored_as": scored_as,
        "judged": scored_as != point.answer.scored_as,
        "upper_bound": point.history.upper_bound,
        "scoring_defaults": {k: str(v) for k, v in scoring_defaults(version).items()},
        "evidence_rule": evidence_rule(version),
    }
