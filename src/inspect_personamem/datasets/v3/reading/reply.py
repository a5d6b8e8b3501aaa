"""How PersonaMem-v3 reads a reply, the model's or a judge's: the JSON it carries
(`extract_json`, the authors' `extract_json_from_response`,
data_preparation/utils.py@20776117), the text a rule or a judge reads
(`response_text`: the runners' `parsed.get("response") or raw_response`; `first_text`:
the agentic dispatch's first truthy field, tasks/agentic_tasks.py@8e2a111f), the
15-distinct-token gate (`is_substantive`, evaluation/metrics.py@33e85bef), and a judge's
reply as an object whose numbers are read as judges.py@be786102 reads them (a reply
that gives no score is `Unreadable`, never 0).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)\n?\s*```", re.DOTALL)


def extract_json(text: str | None) -> object:
    """The JSON a reply carries, or None: `extract_json_from_response`,
    data_preparation/utils.py@20776117.

    The first fenced block (```json or ```) if any, else the whole reply, stripped; parsed
    as JSON; failing that, the span from the first `[` to the last `]`, then from the
    first `{` to the last `}`. One difference: the authors try `json_repair` before the
    spans when it is installed; it is not a dependency here, so a reply only it could
    mend reads as None.
    """
    if not text:
        return None
    fenced = _FENCE.search(text)
    candidate = fenced.group(1).strip() if fenced else text.strip()
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    for opening, closing in (("[", "]"), ("{", "}")):
        start, end = candidate.find(opening), candidate.rfind(closing)
        if start != -1 and end > start:
            try:
                return json.loads(candidate[start : end + 1])
            except json.JSONDecodeError:
                continue
    return None


def response_text(reply: str | None) -> str:
    """The text a rule or a judge reads: the reply's JSON `response` field when it has a
    non-empty one, else the whole reply (the runners' `parsed.get("response") or
    raw_response`; tasks/local_recommendation_geo_shift.py@03f5e860 among them)."""
    parsed = extract_json(reply)
    if isinstance(parsed, dict):
        response = parsed.get("response")
        if isinstance(response, str) and response:
            return response
    return reply or ""


AGENTIC_TEXT_KEYS: Final = ("final_answer", "response", "summary", "reply_to_user")
"""The reply fields the agentic dispatch judges, in its order (`final_answer` is the
text-only write tasks' field)."""


def first_text(reply: str | None, keys: tuple[str, ...] = AGENTIC_TEXT_KEYS) -> str:
    """The text the agentic dispatch judges (tasks/agentic_tasks.py@8e2a111f
    `_dispatch_and_score`, the text-only branch of llm_longctx, llm_memory, mem0,
    agent_tools and codex_agent): the first truthy of `keys` in the reply's JSON object,
    else the raw reply; a dict, list, number or bool picked is JSON-dumped
    (`ensure_ascii=False`), as a `summary` given per participant is. An empty reply is
    the empty text, judged as it is: that branch has no substantive gate."""
    raw = reply or ""
    parsed = extract_json(raw)
    picked: object = raw
    if isinstance(parsed, dict):
        picked = next((parsed[key] for key in keys if parsed.get(key)), raw)
    return picked if isinstance(picked, str) else json.dumps(picked, ensure_ascii=False)


# --- tokens and the substantive-reply gate (metrics.py@33e85bef) ---------------------

_TOKEN = re.compile(r"[A-Za-z0-9#]+")
MIN_SUBSTANTIVE_TOKENS: Final = 15


def tokenize(text: str | None) -> set[str]:
    """The authors' token set: runs of ASCII letters, digits and `#`, lower-cased, of 3
    characters or more (`tokenize`, metrics.py@33e85bef). Other letters split words."""
    return {token.lower() for token in _TOKEN.findall(text or "") if len(token) >= 3}


def is_substantive(reply: str | None) -> bool:
    """A reply of at least 15 distinct tokens (`tokenize`) engages; fewer is empty or a
    refusal and scores 0 (`is_substantive_response`, metrics.py@33e85bef; the runners
    store `non_substantive_response` / `response_is_substantive`, which
    `scale.accuracy_value` reads)."""
    return len(tokenize(reply)) >= MIN_SUBSTANTIVE_TOKENS


# --- a judge's reply (judges.py@be786102) --------------------------------------------

UnreadableReason = Literal["no_json", "not_an_object", "no_number", "out_of_scale"]


@dataclass(frozen=True)
class Unreadable:
    """A judge's reply that gives no score: no JSON (`no_json`), JSON that is not an
    object (`not_an_object`), an object without the number the judge is read for
    (`no_number`, naming `key`; an infinity is no number), or with one off the scale it
    was asked for where nothing clamps it (`out_of_scale`). Never a 0."""

    reason: UnreadableReason
    key: str = ""


def reply_object(reply: str | None) -> Mapping[str, object] | Unreadable:
    """A judge's reply as the object it carries, or why it carries none."""
    parsed = extract_json(reply)
    if parsed is None or parsed == {}:
        # The authors' `extract_json_from_response(...) or {}` cannot tell an empty
        # object from no JSON; neither has a score.
        return Unreadable("no_json")
    if not isinstance(parsed, dict):
        return Unreadable("not_an_object")
    return parsed


def finite(value: object) -> float | None:
    """`isinstance(v, (int, float))`, the authors' test (bools pass, as 1.0 / 0.0); not a
    NaN nor an infinity (JSON's `Infinity`), which no clamp makes a judgement."""
    if isinstance(value, (bool, int, float)) and math.isfinite(value):
        return float(value)
    return None


def clamped(value: object, low: float, high: float) -> float | None:
    """`max(lo, min(hi, float(v)))`, None where `float(v)` raises (judges.py@be786102
    `_clamp`): numeric strings are read, bools are 1 / 0."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if math.isnan(number):
        return None
    return max(low, min(high, number))


def as_flag(value: object) -> bool | None:
    """judges.py@be786102 `_bool`: a bool; a number's truth; "true"/"yes"/"1"/"y"."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "y")
    return None
