"""PersonaMem-v3 rows as their scorer receives them, for the scoring tests: one way to
build a replied sample and to judge it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
from inspect_ai.model import Model, ModelName, ModelOutput
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.scoring.judged import judged_score

PROMPT = "the prompt the model saw"
"""Every sample's input: a judge that was shown it would show it in its prompt."""


def row_metadata(
    task_type: str,
    fields: Mapping[str, Any] | None = None,
    query_id: str = "105:0001:inst",
    more: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A sample's metadata: persona 105's query of `task_type`, its scorer-only
    `fields`, and `more` (what the model was shown, an agent's actions)."""
    return {
        "task_type": task_type, "user_id": "105", "query_id": query_id,
        SCORER_KEY: dict(fields or {}), **(more or {}),
    }  # fmt: skip


def replied(metadata: Mapping[str, Any], reply: str | None) -> TaskState:
    """The sample of `metadata` (its id the `query_id`) once the model said `reply`
    (None: it never replied)."""
    asked = TaskState(
        model=ModelName("m/m"),
        sample_id=str(metadata["query_id"]),
        epoch=1,
        input=PROMPT,
        messages=[],
        metadata=dict(metadata),
    )
    if reply is not None:
        asked.output = ModelOutput.from_content("m/m", reply)
    return asked


def score_judged(asked: TaskState, grader: Model) -> Score:
    """`judged_score` of the sample through `grader`, with the base every v3 score
    records: its task type, persona and query."""
    base = {key: asked.metadata[key] for key in ("task_type", "user_id", "query_id")}
    return anyio.run(judged_score, asked, base, grader)
