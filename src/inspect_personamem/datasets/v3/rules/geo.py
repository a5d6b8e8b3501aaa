"""`local_recommendation_geo_shift`'s rule (tasks/local_recommendation_geo_shift.py
@03f5e860 `compute_geo_shift_metrics`): whether the reply names the current city (or its
region) and not the prior one; and the rule object that scores it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from inspect_personamem.datasets.v3.reading.reply import is_substantive, response_text
from inspect_personamem.datasets.v3.reading.scale import Headline
from inspect_personamem.datasets.v3.rules.score import PLAIN_REPLY, Rule, RuleScore


def names_place(text: str, place: str) -> bool:
    """Whether `text` names `place` as whole words, ignoring case; an empty place never
    matches (`_word_boundary_match`)."""
    place = (place or "").strip()
    if not place or not text:
        return False
    return re.search(r"\b" + re.escape(place) + r"\b", text, re.IGNORECASE) is not None


def geo_shift_correctness(
    text: str, current_city: str, prior_city: str, current_region: str = ""
) -> float:
    """1 if the reply names the current city or its region and not the prior city; 0.5
    if it names neither; 0 if it names the prior city, whatever else it names
    (`compute_geo_shift_metrics`)."""
    if names_place(text, prior_city):
        return 0.0
    if names_place(text, current_city) or names_place(text, current_region):
        return 1.0
    return 0.5


class GeoShift(Rule):
    """The geo-shift rule: the reply's `response` field (or the whole reply,
    `response_text`) scored by `geo_shift_correctness`, {0, 0.5, 1}."""

    def score(
        self, reply: str, fields: Mapping[str, Any], query_id: str, headline: Headline
    ) -> RuleScore:
        text = response_text(reply)
        correctness = geo_shift_correctness(
            text,
            str(fields.get("current_city") or ""),
            str(fields.get("prior_city") or ""),
            str(fields.get("current_region") or ""),
        )
        metrics: dict[str, object] = {"geo_shift_correctness": correctness}
        return RuleScore(correctness, headline.accuracy(metrics), metrics, is_substantive(text))

    def missing(self, fields: Mapping[str, Any]) -> str:
        for name in ("current_city", "prior_city"):
            if not str(fields.get(name) or "").strip():
                return f"field `{name}`: empty"
        return ""

    def replies(self, instance: Mapping[str, Any]) -> tuple[str, str]:
        """A reply naming the current city (its `response`); the low one the prior city."""
        here, before = instance.get("current_city") or "", instance.get("prior_city") or ""
        return _response(f"Here in {here}: {PLAIN_REPLY}"), _response(
            f"Back in {before}: {PLAIN_REPLY}"
        )


def _response(text: str) -> str:
    return json.dumps({"response": text})
