"""`short_vs_long_term_lifecycle`'s rule: a probe's match rate at 3 and the pair's
lifecycle score (evaluation/tasks/e5_horizon_lifecycle.py@b8d90778 `compute_e5_metrics`,
the runner's pairing of pre and post rows; the same code at 0f0f386e), and the rule
object that scores a probe.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

from inspect_personamem.datasets.v3.reading.reply import is_substantive
from inspect_personamem.datasets.v3.reading.scale import Headline
from inspect_personamem.datasets.v3.rules.ranking import parse_ranking, ranking_reply
from inspect_personamem.datasets.v3.rules.score import (
    Rule,
    RuleScore,
    candidate_count,
    instance_of,
)

PHASES: Final = ("pre", "post")
"""A lifecycle probe's phases, in the order the pair subtracts them."""

LIFECYCLE_KEY: Final = "ranked_indices"


def lifecycle_ranking(reply: str | None, n_candidates: int) -> list[object]:
    """A lifecycle probe's reply read as the E5 runner reads it: `ranked_indices`, the
    identity order when it is not a permutation (e5_horizon_lifecycle.py@b8d90778)."""
    return parse_ranking(
        reply, key=LIFECYCLE_KEY, n_candidates=n_candidates, require_permutation=True
    )


def match_rate_at_3(ranked: Sequence[object], matching: Collection[int]) -> float:
    """`match_rate_at_3`: how many of the top 3 are on-topic (`matching_indices`), over
    3 (not over the number of matches), 0 when nothing matches
    (e5_horizon_lifecycle.py@b8d90778 `compute_e5_metrics`)."""
    if not matching:
        return 0.0
    top3 = set(_hashable(ranked[:3]))
    return len(top3 & set(matching)) / 3.0


def _hashable(items: Sequence[object]) -> list[object]:
    out = []
    for item in items:
        try:
            hash(item)
        except TypeError:
            continue
        out.append(item)
    return out


def lifecycle_score(pre_match_rate: float, post_match_rate: float) -> float:
    """`lifecycle_score` = pre.match_rate_at_3 - post.match_rate_at_3, in [-1, 1]: +1 keeps
    the short-term interest on top while it is live and drops it after its stop, -1 the
    reverse. One paired row per canonical that has both probes
    (e5_horizon_lifecycle.py@b8d90778 runner). Not clamped here: its 0-100 form
    (`reading.scale.accuracy_value`, kind `signed_unit`) clamps."""
    return pre_match_rate - post_match_rate


def _ints(value: object) -> set[int]:
    if not isinstance(value, list):
        return set()
    return {item for item in value if isinstance(item, int) and not isinstance(item, bool)}


def _without_phase(instance: str) -> str:
    """An E5 instance id less its `_pre` / `_post` (`e5_{canonical[:40]}_{phase}`)."""
    for phase in PHASES:
        if instance.endswith(f"_{phase}"):
            return instance[: -len(phase) - 1]
    return instance


class Lifecycle(Rule):
    """One probe's `match_rate_at_3`. The authors' headline row is the pair's
    (`lifecycle_score` = pre - post, 50 x (1 + score) on 0-100), made after the run from
    the two probes of one canonical; a probe carries no headline (accuracy None) and its
    `join` names its pair and side, which the metrics join."""

    def score(
        self, reply: str, fields: Mapping[str, Any], query_id: str, headline: Headline
    ) -> RuleScore:
        ranked = lifecycle_ranking(reply, candidate_count(fields))
        rate = match_rate_at_3(ranked, _ints(fields.get("matching_indices")))
        phase = str(fields.get("phase") or "")
        pair = str(fields.get("canonical_id") or "") or _without_phase(instance_of(query_id))
        return RuleScore(
            rate,
            None,
            {"match_rate_at_3": rate, "phase": phase, "ranked_indices": ranked},
            is_substantive(reply),
            join={"kind": "lifecycle", "pair": pair, "side": phase} if phase in PHASES else None,
        )

    def missing(self, fields: Mapping[str, Any]) -> str:
        if fields.get("phase") not in PHASES:
            return f"field `phase`: {fields.get('phase')!r}, not 'pre' or 'post'"
        if not isinstance(fields.get("matching_indices"), list):
            return "field `matching_indices`: not a list"
        return ""

    def replies(self, instance: Mapping[str, Any]) -> tuple[str, str]:
        """The on-topic candidates first at the `pre` probe and last at the `post` one
        (the pair's pre minus post is 1); the low one the reverse."""
        candidates = instance.get("candidates")
        n = len(candidates) if isinstance(candidates, list) else 0
        matching = _ints(instance.get("matching_indices"))
        on = [i for i in range(n) if i in matching]
        off = [i for i in range(n) if i not in matching]
        first = ranking_reply(LIFECYCLE_KEY, on + off)
        last = ranking_reply(LIFECYCLE_KEY, off + on)
        return (first, last) if instance.get("phase") != "post" else (last, first)
