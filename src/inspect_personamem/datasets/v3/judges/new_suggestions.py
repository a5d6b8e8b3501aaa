"""The new-suggestions judge (`new_suggestions_chatbot`): `judge_new_suggestions_chatbot_
prompt`, evaluation/prompts.py@dc56d425 (0-3; the fixed text the authors', verbatim). The
79,210-character copy says "Score on a 0-10 scale" but still asks for `<0|1|2|3>`;
dc56d425's text is self-consistent and is followed. The row (tasks/new_suggestions.py
@fbd1925c): a proposed hashtag in `fatigued_hashtags` or `leak_set_hashtags` fails
without a judge (`passed` 0); else the judge's `hard_fail` gives 0 and `alignment_score`
>= 2 gives 1; x 100. The whole reply is judged, as their runner does, with no gate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Call,
    Judge,
    JudgedRow,
    JudgePrompt,
    Judging,
)
from inspect_personamem.datasets.v3.reading.reply import (
    Unreadable,
    clamped,
    extract_json,
    reply_object,
)

# evaluation/prompts.py@dc56d425 (`judge_new_suggestions_chatbot_prompt`)
NEW_SUGGESTIONS_PROMPT_TEMPLATE: Final = """You are grading an AI assistant's NEW-TOPIC recommendation.

## Trigger
{trigger_kind}

## Hard rules (mark `hard_fail: true` if any apply)
- The recommendation overlaps a `fatigued_hashtag` → recycling saturated topics.
- The recommendation overlaps a `leak_set_hashtag` → user already engaged with it ±24h.

## Gold (a persona-grounded reference for "what good looks like")
- gold_topic: {gold_topic!r}
- gold_hashtags: {gold_hashtags}
- fatigued_hashtags (must NOT appear): {fatigued_hashtags}
- leak_set_hashtags (must NOT appear): {leak_set_hashtags}

## Agent response
{agent_response}

## Scoring
Score on a 0-3 scale how well the agent's recommendation aligns with the
SPIRIT of the gold (not necessarily the exact same topic — different
plausible new directions for this user are fine):
  3 = obviously a fresh, persona-grounded pivot the user would love
  2 = plausible new direction, somewhat aligned with hidden interests
  1 = generic / barely persona-aware
  0 = recycled, off-target, or violates a hard rule

## Output
Respond with ONE fenced ```json block:
```json
{{
  "alignment_score": <0|1|2|3>,
  "hard_fail": <true|false>,
  "reasoning": "<=2 sentences"
}}
```
"""


def new_suggestions_prompt(
    agent_response: str,
    gold_topic: str,
    gold_hashtags: Sequence[str],
    fatigued_hashtags: Sequence[str],
    leak_set_hashtags: Sequence[str],
    trigger_kind: str,
) -> str:
    """`judge_new_suggestions_chatbot_prompt` (prompts.py@dc56d425). The hashtag lists are
    shown as Python prints a list, as the authors' f-string does."""
    return NEW_SUGGESTIONS_PROMPT_TEMPLATE.format(
        trigger_kind=trigger_kind,
        gold_topic=gold_topic,
        gold_hashtags=list(gold_hashtags),
        fatigued_hashtags=list(fatigued_hashtags),
        leak_set_hashtags=list(leak_set_hashtags),
        agent_response=agent_response,
    )


@dataclass(frozen=True)
class NewSuggestionsScore:
    """`compute_new_suggestions_chatbot_metrics`' reading of the judge's reply
    (tasks/new_suggestions.py@fbd1925c): `alignment_score` as `float()` reads it (None
    where it cannot), `hard_fail` only where the reply says `true` (`is True`), and
    `passed`: 0 on that hard fail, else 1 iff alignment >= 2."""

    alignment: float | None
    hard_fail: bool
    passed: float


def read_new_suggestions(reply: str | None) -> NewSuggestionsScore | Unreadable:
    """Unreadable where the authors write `passed` 0 for want of a score: no JSON object,
    or no `alignment_score` `float()` reads and no hard fail. A hard fail the judge says
    is read (0) whatever the score."""
    parsed = reply_object(reply)
    if isinstance(parsed, Unreadable):
        return parsed
    alignment = clamped(parsed.get("alignment_score"), -math.inf, math.inf)
    if parsed.get("hard_fail") is True:
        return NewSuggestionsScore(alignment, True, 0.0)
    if alignment is None:
        return Unreadable("no_number", "alignment_score")
    return NewSuggestionsScore(alignment, False, 1.0 if alignment >= 2.0 else 0.0)


_HASHTAG: Final = re.compile(r"#([a-z0-9_]+)")


def proposed_hashtags(reply: str) -> set[str]:
    """`_extract_response_hashtags` (new_suggestions.py@fbd1925c): the reply JSON's
    `hashtags` list (strings, less `#`, lower-cased; an absent or empty one gives none),
    or where `hashtags` is something other than a list, the `#tags` of the whole reply."""
    parsed = extract_json(reply)
    parsed = parsed if isinstance(parsed, dict) else {}
    tags = parsed.get("hashtags") or []
    if isinstance(tags, list):
        return {t.lstrip("#").lower() for t in tags if isinstance(t, str) and t.strip()}
    return set(_HASHTAG.findall(reply.lower()))


def _tag_set(value: object) -> set[str]:
    tags = value if isinstance(value, list) else []
    return {str(tag).lstrip("#").lower() for tag in tags}


def _strings(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


class NewSuggestions(Judge):
    """The hard rules on the proposed hashtags, then the judge (module docstring)."""

    kind = "new_suggestions"
    why = "tasks/new_suggestions.py@fbd1925c"

    @property
    def judgement(self) -> JudgePrompt:
        return JudgePrompt(
            NEW_SUGGESTIONS_PROMPT_TEMPLATE,
            "agent_response",
            {"alignment_score": 3, "hard_fail": False},
            {"alignment_score": 0, "hard_fail": False},
        )

    def text(self, reply: str) -> str:
        return reply

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        proposed = proposed_hashtags(row.reply)
        fatigued = row.fields.get("fatigued_hashtags") or row.fields.get("fatigue_hashtags")
        fatigue = sorted(proposed & _tag_set(fatigued))
        leak = sorted(proposed & _tag_set(row.fields.get("leak_set_hashtags")))
        metrics: dict[str, object] = {"fatigue_overlap": fatigue, "leak_overlap": leak}
        if fatigue or leak:
            metrics |= {"hard_fail": 1, "alignment_score": 0.0, "passed": 0.0}
            return JudgedRow("rule_zero", metrics, row.headline.accuracy(metrics), row.reply)
        prompt = new_suggestions_prompt(
            row.reply,
            str(row.fields.get("gold_topic") or ""),
            _strings(row.fields.get("gold_hashtags")),
            _strings(fatigued),
            _strings(row.fields.get("leak_set_hashtags")),
            str(row.shown.get("trigger_kind") or ""),  # shown: the prompt branches on it
        )
        answer = await ask(prompt)
        call = (Call(prompt, answer),)
        read = read_new_suggestions(answer)
        if isinstance(read, Unreadable):
            return JudgedRow("judge_unreadable", metrics, None, row.reply, call, read.reason, 0.0)
        metrics |= {
            "hard_fail": int(read.hard_fail),
            "alignment_score": read.alignment,
            "passed": read.passed,
        }
        return JudgedRow("judged", metrics, row.headline.accuracy(metrics), row.reply, call)
