"""The chatbot rubric judge: `judge_chatbot_rubric_prompt`, evaluation/prompts.py@dc56d425
(0-3 / 0-2; the fixed texts the authors', verbatim; the shared sheet says 00de47db's has
the same scales, not compared character by character here), read as
evaluation/judges.py@be786102 reads it (no clamping). No task type takes its headline
from it: no scorer sends it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from inspect_personamem.datasets.v3.judges.preface import JUDGE_PREFACE, dumps
from inspect_personamem.datasets.v3.reading.reply import Unreadable, finite, reply_object

# evaluation/prompts.py@dc56d425 (`judge_chatbot_rubric_prompt`)
CHATBOT_RUBRIC_GUIDANCE: Final[Mapping[str, str]] = {
    "positive": "The held-out preference is POSITIVE: reward responses that surface / align with it.",
    "negative": "The held-out preference is NEGATIVE or carved-out: reward responses that REFUSE to personalize on it and stay generic.",
}
CHATBOT_RUBRIC_GUIDANCE_DEFAULT: Final = "Use the ground-truth slice to decide."
CHATBOT_RUBRIC_PROMPT_TEMPLATE: Final = """{_JUDGE_PREFACE}

Polarity guidance: {polarity_guidance}

## Evidence
```json
{ev}
```

## Response to judge
{response}

## Rubric
For each dimension reason briefly then score:
- preference_alignment (0-3): does the response align with the user's contemporaneous preferences given the polarity guidance?
- helpfulness (0-3): is the response itself useful to the user, independent of personalization?
- appropriate_restraint (0-2): does it avoid pushing preferences that are irrelevant, disliked, or carved out?
- no_hallucinated_preference (0-2): does it avoid asserting user traits ungrounded in history?

Output:
```json
{{
  "preference_alignment": <0-3>,
  "helpfulness": <0-3>,
  "appropriate_restraint": <0-2>,
  "no_hallucinated_preference": <0-2>,
  "reasoning": "..."
}}
```
"""


def chatbot_rubric_prompt(response: str, evidence: Mapping[str, object], polarity: str) -> str:
    """`judge_chatbot_rubric_prompt` (prompts.py@dc56d425)."""
    return CHATBOT_RUBRIC_PROMPT_TEMPLATE.format(
        _JUDGE_PREFACE=JUDGE_PREFACE,
        polarity_guidance=CHATBOT_RUBRIC_GUIDANCE.get(polarity, CHATBOT_RUBRIC_GUIDANCE_DEFAULT),
        ev=dumps(evidence),
        response=response,
    )


CHATBOT_RUBRIC_SCALES: Final[Mapping[str, float]] = {
    "preference_alignment": 3.0,
    "helpfulness": 3.0,
    "appropriate_restraint": 2.0,
    "no_hallucinated_preference": 2.0,
}


def read_chatbot_rubric(reply: str | None) -> Mapping[str, float] | Unreadable:
    """`judge_chatbot_rubric` (judges.py@be786102) keeps each key as the reply gives it,
    unclamped; here the numeric ones, unreadable when none of the four is a number."""
    parsed = reply_object(reply)
    if isinstance(parsed, Unreadable):
        return parsed
    read = {
        key: value
        for key in CHATBOT_RUBRIC_SCALES
        if (value := finite(parsed.get(key))) is not None
    }
    return read if read else Unreadable("no_number", "preference_alignment")
