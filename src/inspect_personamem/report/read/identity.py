"""Who answered and who graded: a model's identity (name, the arguments that change
its replies, base URL) and an open run's grader, read from a log's header and scores."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from inspect_ai.model import GenerateConfig, ModelConfig
from inspect_ai.scorer import Score

from inspect_personamem.report.errors import ReportError
from inspect_personamem.scoring.grader.scorer import GRADER_RECORD

GRADER_ROLE = "grader"
"""The Inspect model role of the model that grades open answers."""


ANSWER_NEUTRAL_MODEL_ARGS = frozenset({"device"})
"""Model arguments (`-M`) that say where a model runs, not which model answers: left
out of a run's model. Every other model argument is part of it (`Run.model_id`)."""

REPLY_NEUTRAL_SETTINGS = frozenset(
    {
        "max_retries", "timeout", "attempt_timeout", "stream_idle_timeout",
        "max_connections", "adaptive_connections", "cache", "cache_prompt", "batch",
    }
)  # fmt: skip
"""Generation settings that say how a model is called, not what it replies: left out of
a grader's identity. Every other one (temperature, max_tokens, ...) is part of it."""

BASE_URL = "base_url"
"""The name a model's base URL has among its arguments in its identity (`ModelId`):
no model argument can have it, `get_model` takes its own `base_url`."""

Items = tuple[tuple[str, str], ...]
"""Names and values as text, sorted by name."""
ModelId = tuple[str, Items]
"""A model's name, and its arguments (`-M`, less `ANSWER_NEUTRAL_MODEL_ARGS`) with its
base URL (`BASE_URL`, where one was given) as text."""


class Grader(NamedTuple):
    """The model that graded a run's open answers, and how it generated."""

    model: ModelId
    settings: Items = ()
    """Its generation settings (`GenerateConfig`) that were set, less
    `REPLY_NEUTRAL_SETTINGS`, as text."""

    @property
    def shown(self) -> ModelId:
        """The grader as labels show it: its settings among its arguments, so that two
        graders of one name that differ in temperature read `(temperature=...)`."""
        name, args = self.model
        return (name, tuple(sorted((*args, *self.settings))))


RunKey = tuple[ModelId, str, Items, Grader | None]
"""Model x split x setting x grader (`Run.key`)."""


def args_as_text(args: Mapping[str, Any]) -> dict[str, str]:
    """A model's arguments as text, less `ANSWER_NEUTRAL_MODEL_ARGS`."""
    return _as_text(args, ANSWER_NEUTRAL_MODEL_ARGS)


def _as_text(values: Mapping[str, Any], neutral: frozenset[str]) -> dict[str, str]:
    """`values` as text (JSON but for strings), less the names in `neutral`."""
    return {
        key: value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        for key, value in values.items()
        if key not in neutral
    }


def model_identity(name: str, args: Mapping[str, Any], base_url: str | None) -> ModelId:
    """A model's identity (`ModelId`)."""
    items = args_as_text(args) | ({BASE_URL: base_url} if base_url else {})
    return (name, tuple(sorted(items.items())))


def generation_settings(config: GenerateConfig) -> dict[str, str]:
    """The generation settings that were set, as text, less `REPLY_NEUTRAL_SETTINGS`."""
    return _as_text(config.model_dump(exclude_none=True), REPLY_NEUTRAL_SETTINGS)


def grader_of(config: ModelConfig) -> Grader:
    """The grader a model config names (`Grader`)."""
    settings = generation_settings(config.config)
    return Grader(
        model_identity(config.model, config.args, config.base_url), tuple(sorted(settings.items()))
    )


def graded_by(
    settings: Mapping[str, str],
    model: ModelId,
    roles: Mapping[str, ModelConfig | list[ModelConfig]] | None,
    scores: Iterable[Score],
) -> Grader | None:
    """The model that graded an open run's answers (`Run.grader`); None for other runs.

    The one its scores name (`GRADER_RECORD`): a re-grade by `inspect score` names its
    own grader there, while the log's header keeps the run's roles. Where no score names
    one (a log made before they did), the one bound to the grader role (of a list, the
    first: the one the scorer's `get_model` returns), or with `grader=self` the model
    under test.
    """
    if settings["answer"] != "open":
        return None
    recorded = {recorded_grader(score) for score in scores} - {None}
    if len(recorded) > 1:
        raise ReportError(
            f"its scores name {len(recorded)} different graders ({GRADER_RECORD}): re-grade "
            "every sample with one grader"
        )
    if recorded:
        return recorded.pop()
    if settings["grader"] == "self":
        return Grader(model)
    role = (roles or {}).get(GRADER_ROLE)
    config = role[0] if isinstance(role, list) and role else role
    if not isinstance(config, ModelConfig):
        raise ReportError(
            f"answer=open graded by the {GRADER_ROLE} role, but the log records no model "
            "bound to it (eval.model_roles)"
        )
    return grader_of(config)


def recorded_grader(score: Score) -> Grader | None:
    """The grader a score names (`GRADER_RECORD`), if it names one."""
    record = (score.metadata or {}).get(GRADER_RECORD)
    if record is None:
        return None
    if not isinstance(record, dict):  # Inspect's summaries drop a value over 1k
        raise ReportError(f"its scores' {GRADER_RECORD} cannot be read: {str(record)[:80]}")
    return grader_of(ModelConfig.model_validate(record))
