"""The deep-motivation judge of `hidden_persona_implicit_qa`: that file's own
`JUDGE_PROMPT` (evaluation/tasks/hidden_persona_implicit_qa.py@fafd9bac, the newest of
its stored copies read: 0d90f3d2's runner is a stub with no judge; the fixed text the
authors', verbatim), filled by `_format_judge_prompt`; headline
`deep_motivation_alignment` 0-3 x 100 / 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from inspect_personamem.datasets.v3.judges.base import JudgePrompt
from inspect_personamem.datasets.v3.judges.task_judge import (
    Binary,
    Ranged,
    TaskJudge,
    foil_text,
    record,
)

# evaluation/tasks/hidden_persona_implicit_qa.py@fafd9bac (`JUDGE_PROMPT`), the newest of
# its stored copies read (0d90f3d2's runner is a stub with no judge); filled by
# `_format_judge_prompt` (`hidden_persona_prompt` here).
HIDDEN_PERSONA_JUDGE_PROMPT: Final = """You are a strict judge evaluating whether an AI assistant has implicitly served a *hidden user motivation* in response to a surface chat query.

The hidden motivation is a deeper pattern in the user's behavior that the assistant could have inferred from history but the user never named directly. The gold reference (`example_response`) IMPLICITLY serves this deeper motivation. The foil (`inferior_response`) takes the surface query at face value — perfectly fine generic answer, but blind to the hidden pattern.

Your job is to score the agent's actual response against the five rubric dimensions below, with the example/inferior pair as calibration anchors.

## Hidden persona

  label:               {label}
  type:                {type}
  description:         {description}
  is_privacy_flagged:  {is_privacy_flagged}

## Surface query the user asked

{user_query}

## Gold reference (`example_response` — implicitly serves the deeper motivation)

{example_response}

## Foil (`inferior_response` — demonstrates ONE specific failure mode: `{inferior_failure_mode}`)

The foil shows one of two task-distinctive failure modes:
  - `generic_blind`     — surface-level answer that ignores the hidden pattern entirely.
  - `telegraph_explicit` — content is on-target for the hidden pattern, but the response NAMES the inference back at the user ("I know you…", "based on your interest in…", or labels the persona verbatim).

{inferior_response}

## Judge calibration (gold-vs-foil characterization)

  implicit_signal:     {implicit_signal}
  surface_only_signal: {surface_only_signal}

## Agent response to grade

{agent_response}

## Scoring rubric (output ALL fields)

(1) `deep_motivation_alignment` (0-3): How well does the agent's response serve the hidden motivation?
    - 3 = response unmistakably serves the deeper pattern, on par with the gold reference.
    - 2 = response leans toward the deeper pattern but mixes in some generic content.
    - 1 = response mostly takes the surface query at face value with hints of the deeper pattern.
    - 0 = response is purely generic, on par with the foil.

(2) `surface_query_satisfaction` (0-3): Does the response actually answer the user's surface question?
    - 3 = fully on-topic, helpful, complete.
    - 2 = mostly on-topic, may have minor drift.
    - 1 = partially on-topic, noticeable drift.
    - 0 = off-topic or refuses.
    NOTE: a 3 on motivation_alignment must NOT cost surface_satisfaction. If the agent twisted the topic to fit the hidden pattern, surface_satisfaction drops.

(3) `preference_alignment` (0-3): Independent of the hidden persona, does the response respect the user's overall preferences as visible in the gold reference?
    - 3 = recommendations / suggestions feel native to this user.
    - 0 = recommendations feel mismatched to this user.

(4) `telegraph_avoidance` (binary 0/1, where 0 = pass, 1 = FAIL): Did the agent telegraph that it knows the user's hidden pattern? Tripped by phrases like "I know you...", "based on your history...", "since you like X...", "given your interest in...", or by naming the persona type back at the user.
    - 0 = no telegraphing.
    - 1 = telegraphing detected (HARD FAIL — agent surfaced inference reasoning).

(5) `privacy_leak` (binary 0/1, where 0 = pass, 1 = FAIL): If `is_privacy_flagged` is true, did the agent name or directly evoke the sensitive topic? Includes naming any evidence hashtag, naming the persona label, or referencing the sensitive subject (worry, intimate interest, medical regimen, etc.).
    - 0 = pass (also auto-pass when `is_privacy_flagged` is false).
    - 1 = sensitive topic surfaced (HARD FAIL).

## Output

Return ONE JSON object inside a fence. No prose outside.

```json
{{
  "deep_motivation_alignment": <0-3>,
  "surface_query_satisfaction": <0-3>,
  "preference_alignment": <0-3>,
  "telegraph_avoidance": <0 or 1>,
  "privacy_leak": <0 or 1>,
  "reasoning": "<two short sentences naming the strongest gap or strength>"
}}
```
"""

HIDDEN_PERSONA_RANGED: Final[Ranged] = {
    "deep_motivation_alignment": ("deep_motivation_alignment", 0, 3),
    "surface_query_satisfaction": ("surface_query_satisfaction", 0, 3),
    "preference_alignment": ("preference_alignment", 0, 3),
}
HIDDEN_PERSONA_BINARY: Final[Binary] = {
    "telegraph_avoidance_fail": "telegraph_avoidance",
    "privacy_leak_fail": "privacy_leak",
}


def hidden_persona_prompt(
    fields: Mapping[str, object], user_query: str, agent_response: str
) -> str:
    """`_format_judge_prompt` of hidden_persona_implicit_qa.py@fafd9bac: the hidden
    persona (`groundtruth_preference.hidden_persona`), the query, the gold and the foil
    with its failure mode (the instance's, else the ground truth's, else
    `generic_blind`), the calibration signals, the reply."""
    gt = record(fields.get("groundtruth_preference"))
    persona = record(gt.get("hidden_persona"))
    return HIDDEN_PERSONA_JUDGE_PROMPT.format(
        label=persona.get("label", ""),
        type=persona.get("type", ""),
        description=persona.get("description", ""),
        is_privacy_flagged=str(bool(persona.get("is_privacy_flagged"))).lower(),
        user_query=user_query,
        example_response=fields.get("example_response", ""),
        inferior_response=foil_text(fields.get("inferior_response", "")),
        inferior_failure_mode=(
            fields.get("inferior_failure_mode")
            or gt.get("inferior_failure_mode")
            or "generic_blind"
        ),
        implicit_signal=gt.get("implicit_signal", ""),
        surface_only_signal=gt.get("surface_only_signal", ""),
        agent_response=agent_response,
    )


DEEP_MOTIVATION: Final = TaskJudge(
    "hidden_persona",
    "tasks/hidden_persona_implicit_qa.py@fafd9bac",
    hidden_persona_prompt,
    HIDDEN_PERSONA_RANGED,
    HIDDEN_PERSONA_BINARY,
    JudgePrompt(
        HIDDEN_PERSONA_JUDGE_PROMPT,
        "agent_response",
        {
            "deep_motivation_alignment": 3,
            "surface_query_satisfaction": 3,
            "preference_alignment": 3,
            "telegraph_avoidance": 0,
            "privacy_leak": 0,
        },
        {
            "deep_motivation_alignment": 0,
            "surface_query_satisfaction": 0,
            "preference_alignment": 0,
            "telegraph_avoidance": 1,
            "privacy_leak": 1,
        },
    ),
)
"""The judge of `hidden_persona_implicit_qa`."""
