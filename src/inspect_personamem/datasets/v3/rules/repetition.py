"""The repetition tasks' rules: tail diversity of a same-preference cluster
(`within_cluster_diversity`, evaluation/metrics.py@a24ea9ce) and the chatbot cluster's
preference overuse (`chatbot_pref_overuse_rate`, metrics.py@33e85bef).

metrics.py has 11 stored versions; two were read. 33e85bef adds the substantive gate
and scores the chatbot repetition task from 0-10 judge scores; a24ea9ce has neither, so
33e85bef is the newer. 33e85bef's `within_cluster_diversity` is a half-done rename (it
still reads `tail` and `head`, which it no longer defines, and would raise NameError),
so the tail checks follow a24ea9ce, whose arithmetic 33e85bef meant to keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from inspect_personamem.datasets.v3.rules.leaks import jaccard

TEXT_JACCARD_MAX: Final = 0.5
HEAD_HASHTAG_REUSE_MAX: Final = 0.30
PAIRWISE_HASHTAG_OVERLAP_MAX: Final = 0
RESTRAINT_PASS: Final = 7.0
INVOCATION_BELOW: Final = 5.0


def _tags(value: object) -> set[str]:
    """Agent-emitted hashtags as a set: strings only, stripped, `#` dropped, lower-cased."""
    if not isinstance(value, list):
        return set()
    out = {tag.strip().lstrip("#").strip().lower() for tag in value if isinstance(tag, str)}
    return {tag for tag in out if tag}


def _text(response: Mapping[str, object]) -> str:
    return f"{response.get('title', '')} {response.get('caption', '')}".strip()


@dataclass(frozen=True)
class TailDiversity:
    """`within_cluster_diversity`'s checks over the tail (responses after the first
    `n_allowed_repetitions + 1`): unrounded (the authors round the reported values to 3
    places after checking them)."""

    n_total: int
    n_head: int
    n_tail: int
    pairwise_text_jaccard_mean: float
    tail_vs_head_text_jaccard_max: float
    pairwise_hashtag_overlap_max: int
    head_hashtag_reuse_rate_max: float
    persona_alignment_pass_rate: float | None
    violations: dict[str, int] = field(default_factory=dict)

    @property
    def tail_passed(self) -> bool:
        """No check violated."""
        return not self.violations


def within_cluster_diversity(
    responses: Sequence[Mapping[str, object]],
    n_allowed_repetitions: int = 2,
    persona_alignment_passes: Sequence[bool] | None = None,
) -> TailDiversity:
    """Tail diversity of a same-preference cluster (`within_cluster_diversity`,
    metrics.py@a24ea9ce; see the module docstring for 33e85bef).

    Responses are `{title, caption, hashtags}` in order. The tail passes iff: the mean
    Jaccard of (title + caption) over tail pairs is <= 0.5; the largest such Jaccard
    between a tail and a head response is <= 0.5; no two tail responses share a hashtag;
    no tail response takes more than 30% of its hashtags from the head's union (a tail
    response with no hashtag reuses 0); and, when given, every persona-alignment verdict
    of the tail passes (an empty list counts as all passed). No tail: passed.
    """
    n_total = len(responses)
    n_head = min(n_allowed_repetitions + 1, n_total)
    head, tail = responses[:n_head], responses[n_head:]
    if not tail:
        return TailDiversity(n_total, n_head, 0, 0.0, 0.0, 0, 0.0, 1.0)
    pairs = [(i, j) for i in range(len(tail)) for j in range(i + 1, len(tail))]
    pair_jaccards = [jaccard(_text(tail[i]), _text(tail[j])) for i, j in pairs]
    jaccard_mean = sum(pair_jaccards) / len(pair_jaccards) if pair_jaccards else 0.0
    vs_head = max((jaccard(_text(t), _text(h)) for t in tail for h in head), default=0.0)
    tail_tags = [_tags(r.get("hashtags")) for r in tail]
    overlap_max = max((len(tail_tags[i] & tail_tags[j]) for i, j in pairs), default=0)
    head_union: set[str] = set()
    for response in head:
        head_union |= _tags(response.get("hashtags"))
    reuse_max = max(len(tags & head_union) / len(tags) if tags else 0.0 for tags in tail_tags)
    if persona_alignment_passes is None:
        alignment: float | None = None
    elif not persona_alignment_passes:
        alignment = 1.0
    else:
        passes = list(persona_alignment_passes[: len(tail)])
        alignment = sum(1 for ok in passes if ok) / max(1, len(passes))
    violations: dict[str, int] = {}
    if jaccard_mean > TEXT_JACCARD_MAX:
        violations["tail_pairwise_text_jaccard_too_high"] = 1
    if vs_head > TEXT_JACCARD_MAX:
        violations["tail_vs_head_text_jaccard_too_high"] = 1
    if overlap_max > PAIRWISE_HASHTAG_OVERLAP_MAX:
        violations["tail_pairwise_hashtag_overlap"] = overlap_max
    if reuse_max > HEAD_HASHTAG_REUSE_MAX:
        violations["tail_head_hashtag_reuse_too_high"] = 1
    if alignment is not None and alignment < 1.0:
        violations["persona_alignment_failed"] = 1
    return TailDiversity(
        n_total, n_head, len(tail), jaccard_mean, vs_head, overlap_max, reuse_max,
        alignment, violations,
    )  # fmt: skip


@dataclass(frozen=True)
class ChatbotOveruse:
    """`chatbot_pref_overuse_rate` (metrics.py@33e85bef), unrounded."""

    n_total: int
    n_head: int
    n_tail: int
    head_invocations: int
    tail_violations: int
    overuse_rate: float
    restraint_score: float
    passed: bool

    @property
    def query_score_0_10(self) -> float:
        """The per-query headline (task_registry@8e2a111f): the tail restraint score."""
        return self.restraint_score


def chatbot_pref_overuse(
    restraint_scores: Sequence[float], n_allowed_repetitions: int = 2
) -> ChatbotOveruse:
    """The chatbot repetition cluster from per-response judge scores 0-10 (10 = the
    preference not invoked). Head: the first `n_allowed_repetitions + 1`. Invocations are
    scores below 5; `overuse_rate` = mean (10 - s) / 10 over the tail; `restraint_score` =
    the tail mean (10 with no tail); passed iff every tail score is >= 7 (metrics.py
    @33e85bef; a24ea9ce took booleans and passed only with no tail invocation)."""
    n_total = len(restraint_scores)
    n_head = min(n_allowed_repetitions + 1, n_total)
    head, tail = restraint_scores[:n_head], restraint_scores[n_head:]
    return ChatbotOveruse(
        n_total=n_total,
        n_head=n_head,
        n_tail=len(tail),
        head_invocations=sum(1 for s in head if s < INVOCATION_BELOW),
        tail_violations=sum(1 for s in tail if s < INVOCATION_BELOW),
        overuse_rate=sum((10.0 - s) / 10.0 for s in tail) / len(tail) if tail else 0.0,
        restraint_score=sum(tail) / len(tail) if tail else 10.0,
        passed=all(s >= RESTRAINT_PASS for s in tail),
    )
