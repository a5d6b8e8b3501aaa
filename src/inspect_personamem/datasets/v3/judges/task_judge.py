"""The task types' own judges (personal-QA hallucination's, hidden-persona QA's: one
prompt each, `abstention` and `deep_motivation`): read as their `_score_judge_response`
reads them, and the judge object both are (`TaskJudge`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Judge,
    JudgedRow,
    JudgePrompt,
    Judging,
    judged_once,
)
from inspect_personamem.datasets.v3.reading.reply import Unreadable, clamped, extract_json

Ranged = Mapping[str, tuple[str, float, float]]
"""Metric key -> (the reply's key, lowest, highest): a number in range, else None."""
Binary = Mapping[str, str]
"""Metric key -> the reply's key: 0 or 1, else None."""


def _in_range(value: object, low: float, high: float) -> float | None:
    """`_num`: `float(v)` within [low, high], else None (out of range is not clamped)."""
    number = clamped(value, -math.inf, math.inf)
    return number if number is not None and low <= number <= high else None


def _binary(value: object) -> int | None:
    """`_bin`: `int(v)` where it is 0 or 1, else None."""
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number in (0, 1) else None


def read_task_judge(
    reply: str | None, ranged: Ranged, binary: Binary
) -> dict[str, object] | Unreadable:
    """A task's own judge read as its `_score_judge_response` reads it
    (personal_qa_hallucination.py@6a2480b5, hidden_persona_implicit_qa.py@fafd9bac):
    the first object of a list reply, each number in range or None, each flag 0 / 1 or
    None, and `judge_reasoning`. Unreadable without an object; a None headline is the
    caller's to call unreadable (the authors' aggregate leaves such a row out)."""
    parsed = extract_json(reply)
    if isinstance(parsed, list) and parsed:
        parsed = parsed[0]
    if not isinstance(parsed, dict) or not parsed:
        return Unreadable("no_json" if parsed in (None, {}, []) else "not_an_object")
    metrics: dict[str, object] = {
        name: _in_range(parsed.get(key), low, high) for name, (key, low, high) in ranged.items()
    }
    metrics |= {name: _binary(parsed.get(key)) for name, key in binary.items()}
    metrics["judge_reasoning"] = parsed.get("reasoning") or ""
    return metrics


def record(value: object) -> Mapping[str, object]:
    """An instance's object field, `{}` where it holds anything else (the generator
    writes `groundtruth_preference` as text; the builders read here, as an object)."""
    return value if isinstance(value, dict) else {}


def foil_text(value: object) -> object:
    """The foil as the judge prompt shows it: the builders read wrote it as text; the
    released rows hold `{text, flaw_kind}`, whose `text` is shown (a difference: the
    authors' format would print the object)."""
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    return value


Filler = Callable[[Mapping[str, object], str, str], str]
"""A task judge's prompt from the scorer fields, the user's query and the reply."""


@dataclass(frozen=True)
class TaskJudge(Judge):
    """A task's own judge: its prompt (`fill`), the numbers (`ranged`) and flags
    (`binary`) its reader reads, and the offline judgement of its prompt."""

    kind: str
    why: str
    fill: Filler
    ranged: Ranged
    binary: Binary
    offline: JudgePrompt

    @property
    def judgement(self) -> JudgePrompt:
        return self.offline

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        prompt = self.fill(row.fields, str(row.shown.get("user_query") or ""), row.text)
        headline = row.headline.metric

        def metrics(answer: str) -> dict[str, object] | str:
            read = read_task_judge(answer, self.ranged, self.binary)
            if isinstance(read, Unreadable):
                return read.reason
            if read.get(headline) is None:
                return f"no {headline} in range"
            return {**read, "non_substantive_response": 0}

        return await judged_once(row, prompt, ask, metrics, "judged", row.headline.accuracy)
