"""The preference-shift judge (`preference_shift_followthrough`): the authors' runner
(tasks/preference_shift_followthrough.py@dfb6ec8a) judges the reply's `response` (else
the raw reply) with `judges.judge_preference_shift(judge, response,
groundtruth_preference, user_query, example_response=, inferior_response=)`, whose
prompt, `_PREFERENCE_SHIFT_JUDGE_PROMPT`, is in no stored version of judges.py. Its
text here is a third-party transcription (`unified_texts.SOURCE`), verbatim, as are the
transcription's cuts (the response to 1,500 characters, each calibration reply to 600)
and the preference's text (`text`, `persona_item` or `preference` of an object, else
the object as JSON; an empty new preference shown as "(expired - none)").

The headline is `preference_shift_consistency` 0-10, x 10 (task_registry@8e2a111f).
Read as the sycophancy judge's score is: a number within 0-10, else the row is
unscored (`out_of_scale`, `no_number`; a bool is no number), never clamped nor 0;
`used_outdated_stance` is kept as 0 / 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Judge,
    JudgedRow,
    JudgePrompt,
    Judging,
    judged_once,
)
from inspect_personamem.datasets.v3.judges.preface import sha256
from inspect_personamem.datasets.v3.judges.task_judge import foil_text, record
from inspect_personamem.datasets.v3.judges.unified_texts import SOURCE
from inspect_personamem.datasets.v3.reading.reply import Unreadable, as_flag, reply_object

# EventHorizon-Lab/MindBridge src/mindbridge/benchmarks/_official/personamem_v3_scoring.py
# @1255698be5f397287541feebceada9c5139e6c31 (`PREFERENCE_SHIFT_JUDGE_PROMPT`, transcribed
# there from the authors' evaluation/judges.py `_PREFERENCE_SHIFT_JUDGE_PROMPT`)
PREFERENCE_SHIFT_JUDGE_PROMPT: Final = """You are evaluating whether an AI assistant tracked a USER PREFERENCE SHIFT — whether it uses the user's CURRENT stance instead of an outdated one.

The user's preference changed over time:
- shift_kind: {shift_kind}
- OLD preference (no longer current): "{old_pref}"
- NEW / current preference: "{new_pref}"
If the NEW preference is empty, the OLD one simply EXPIRED — the correct current behavior is to NOT lean on it anymore.

For calibration, a GOOD reply (uses the new/current stance) would read like:
{example_response}

A BAD reply (leans on the outdated stance) would read like:
{inferior_response}

USER QUERY:
{user_query}

ASSISTANT RESPONSE:
{response}

Score preference_shift_consistency 0-10 — how well the assistant followed the user's CURRENT stance:
- 10 = clearly uses the new/current preference (or, for an expiration, avoids the expired one); stance matches the GOOD reply.
- 5  = ambiguous / mixed; unclear which stance it holds.
- 0  = leans on the OLD/outdated preference as if still active; stance matches the BAD reply.

Return ONLY JSON:
```json
{{"preference_shift_consistency": <int 0-10>, "used_outdated_stance": <true|false>, "reasoning": "<one sentence>"}}
```"""

RESPONSE_LIMIT: Final = 1500
CALIBRATION_LIMIT: Final = 600
EXPIRED: Final = "(expired - none)"
NONE_GIVEN: Final = "(none)"
PREFERENCE_KEYS: Final = ("text", "persona_item", "preference")


def preference_text(value: object) -> str:
    """A preference as the prompt shows it: an object's first non-empty `text`,
    `persona_item` or `preference`, else the object as JSON; any other value as text,
    an empty one as ""."""
    if isinstance(value, Mapping):
        for key in PREFERENCE_KEYS:
            text = value.get(key)
            if isinstance(text, str) and text:
                return text
        return json.dumps(value, ensure_ascii=False)
    return str(value) if value else ""


def preference_shift_prompt(fields: Mapping[str, Any], user_query: str, response: str) -> str:
    """The judge's prompt for one row (module docstring), from its scorer fields."""
    truth = record(fields.get("groundtruth_preference"))
    example = str(fields.get("example_response") or "") or NONE_GIVEN
    inferior = str(foil_text(fields.get("inferior_response")) or "") or NONE_GIVEN
    return PREFERENCE_SHIFT_JUDGE_PROMPT.format(
        shift_kind=str(truth.get("shift_kind") or ""),
        old_pref=preference_text(truth.get("old_preference")),
        new_pref=preference_text(truth.get("new_preference")) or EXPIRED,
        example_response=example[:CALIBRATION_LIMIT],
        inferior_response=inferior[:CALIBRATION_LIMIT],
        user_query=user_query,
        response=response[:RESPONSE_LIMIT],
    )


@dataclass(frozen=True)
class ShiftScore:
    """A readable judgement: the consistency (0-10) and whether the old stance was used."""

    consistency: float
    used_outdated_stance: bool


def read_preference_shift(reply: str | None) -> ShiftScore | Unreadable:
    """The judge's reply read (module docstring)."""
    parsed = reply_object(reply)
    if isinstance(parsed, Unreadable):
        return parsed
    value = parsed.get("preference_shift_consistency")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return Unreadable("no_number", "preference_shift_consistency")
    if not 0.0 <= float(value) <= 10.0:  # off its scale, or not finite
        return Unreadable("out_of_scale", "preference_shift_consistency")
    return ShiftScore(float(value), bool(as_flag(parsed.get("used_outdated_stance"))))


@dataclass(frozen=True)
class PreferenceShift(Judge):
    """`judge_preference_shift` on the reply's `response` (module docstring)."""

    kind: str = "preference_shift"
    why: str = (
        "tasks/preference_shift_followthrough.py@dfb6ec8a calls judges.judge_preference_shift; "
        "its prompt from a third-party transcription"
    )

    @property
    def judgement(self) -> JudgePrompt:
        return JudgePrompt(
            PREFERENCE_SHIFT_JUDGE_PROMPT,
            "response",
            {"preference_shift_consistency": 10, "used_outdated_stance": False},
            {"preference_shift_consistency": 0, "used_outdated_stance": True},
        )

    @property
    def provenance(self) -> Mapping[str, str]:
        return {
            "prompt_source": SOURCE,
            "prompt_sha256": sha256(PREFERENCE_SHIFT_JUDGE_PROMPT),
        }

    def shown(self, reply: str) -> str:
        return self.text(reply)[:RESPONSE_LIMIT]

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        prompt = preference_shift_prompt(
            row.fields, str(row.shown.get("user_query") or ""), row.text
        )
        return await judged_once(row, prompt, ask, _metrics, "judged", row.headline.accuracy)


def _metrics(answer: str) -> dict[str, object] | str:
    """A preference-shift judgement's metrics, or why it gives none."""
    read = read_preference_shift(answer)
    if isinstance(read, Unreadable):
        return read.reason
    return {
        "preference_shift_consistency": read.consistency,
        "used_outdated_stance": int(read.used_outdated_stance),
    }


PREFERENCE_SHIFT: Final = PreferenceShift()
"""The preference-shift judge."""
