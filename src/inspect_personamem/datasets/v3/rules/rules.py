"""PersonaMem-v3's deterministic scoring rules other than ranking (`ranking.py`); the
table of its 31 task types is `tasks.py`.

Each function follows one file of bowen-upenn/PersonaMem-v3 at a named commit (full
hashes in the shared COMMITS.md); where two versions disagree the docstring says which
it follows. "Newest" is read from the content (the index gives no dates).

- `evaluation/metrics.py`: 11 stored versions; two read. 33e85bef adds the substantive
  gate (`is_substantive_response`, 15 distinct tokens) and scores the chatbot
  repetition task from 0-10 judge scores; a24ea9ce has neither, so 33e85bef is the newer.
  33e85bef's `within_cluster_diversity` is a half-done rename (it still reads `tail` and
  `head`, which it no longer defines, and would raise NameError), so the tail checks
  follow a24ea9ce, whose arithmetic 33e85bef meant to keep. Neither has
  `lifecycle_score`: that lives in `ranking.py`.
- 0-100 conversions: scripts/aggregate_eval.py@19bc3eec (`_accuracy_value`), plus the
  `pref_align_gated` kind that only a newer stored copy has (38,596 characters, commit
  not shown by the index) and task_registry@8e2a111f uses.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from inspect_personamem.datasets.v3.rules.ranking import extract_json

# --- tokens and the substantive-reply gate (metrics.py@33e85bef) ---------------------

_TOKEN = re.compile(r"[A-Za-z0-9#]+")
MIN_SUBSTANTIVE_TOKENS: Final = 15
LEAK_THRESHOLD: Final = 0.5


def tokenize(text: str | None) -> set[str]:
    """The authors' token set: runs of ASCII letters, digits and `#`, lower-cased, of 3
    characters or more (`tokenize`, metrics.py@33e85bef). Other letters split words."""
    return {token.lower() for token in _TOKEN.findall(text or "") if len(token) >= 3}


def is_substantive(reply: str | None) -> bool:
    """A reply of at least 15 distinct tokens (`tokenize`) engages; fewer is empty or a
    refusal and scores 0 (`is_substantive_response`, metrics.py@33e85bef; the runners
    store `non_substantive_response` / `response_is_substantive`, which
    `accuracy_value` reads)."""
    return len(tokenize(reply)) >= MIN_SUBSTANTIVE_TOKENS


def jaccard(a: str | None, b: str | None) -> float:
    """Token-set Jaccard (`tokenize`), 0 when either side has no token."""
    ta, tb = tokenize(a), tokenize(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


# --- leak rate (metrics.py@33e85bef) --------------------------------------------------

Embedder = Callable[[Sequence[str]], Sequence[Sequence[float]]]
"""Texts to vectors. The authors use sentence-transformers `all-MiniLM-L6-v2` with
normalized embeddings (the `memory` extra here); tests pass a stand-in."""

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _hashtag_tokens(hashtag: str) -> set[str]:
    """A hashtag's whole lower-cased text and its camelCase parts of 3+ characters
    (`#MarlonWayans` -> marlonwayans, marlon, wayans)."""
    raw = hashtag.lstrip("#")
    return {raw.lower()} | {part.lower() for part in _CAMEL.split(raw) if len(part) >= 3}


def hashtag_overlap(reply: str | None, hashtags: Sequence[str]) -> float:
    """The share of the (non-empty) hashtags one of whose tokens is a reply token."""
    tags = [tag for tag in hashtags if tag]
    if not tags:
        return 0.0
    reply_tokens = tokenize(reply)
    return sum(1 for tag in tags if _hashtag_tokens(tag) & reply_tokens) / len(tags)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def similarity(
    reply: str | None, item_text: str, hashtags: Sequence[str], embed: Embedder | None = None
) -> float:
    """max(hashtag overlap, semantic score): the semantic score is the cosine of the
    item's text and the reply under `embed`, or, without one, their token Jaccard (the
    authors' own fallback when sentence-transformers is missing)."""
    if embed is None:
        semantic = jaccard(reply, item_text)
    else:
        item_vector, reply_vector = embed([item_text, reply or ""])[:2]
        semantic = _cosine(item_vector, reply_vector)
    return max(hashtag_overlap(reply, hashtags), semantic)


def _item_text(item: Mapping[str, object]) -> str:
    return f"{item.get('persona_item') or ''} {item.get('category') or ''}".strip()


def _item_hashtags(item: Mapping[str, object]) -> list[str]:
    tags = item.get("source_hashtags") or []
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


def leaks(
    reply: str | None,
    items: Sequence[Mapping[str, object]],
    threshold: float = LEAK_THRESHOLD,
    embed: Embedder | None = None,
) -> int:
    """How many items (`persona_item`, `category`, `source_hashtags`) the reply leaks:
    similarity of at least `threshold` (0.5)."""
    return sum(
        1
        for item in items
        if similarity(reply, _item_text(item), _item_hashtags(item), embed) >= threshold
    )


@dataclass(frozen=True)
class Leak:
    """A leak count: `rate` = leaked / total (0 with no items); `hard_fail` as the
    function that made it says; `skip_reason` "non_substantive_response" when the gate
    fired."""

    rate: float
    leaked: int
    total: int
    hard_fail: int
    skip_reason: str | None = None


def personalization_leak(
    reply: str | None,
    items: Sequence[Mapping[str, object]],
    threshold: float = LEAK_THRESHOLD,
    embed: Embedder | None = None,
) -> Leak:
    """`personalization_leak_rate` (metrics.py@33e85bef): no items, rate 0 and no fail;
    a non-substantive reply, rate 0 and `hard_fail` 1 (silence is not restraint); else
    the leaked share, `hard_fail` 0."""
    if not items:
        return Leak(0.0, 0, 0, 0)
    if not is_substantive(reply):
        return Leak(0.0, 0, len(items), 1, "non_substantive_response")
    leaked = leaks(reply, items, threshold, embed)
    return Leak(leaked / len(items), leaked, len(items), 0)


def keyword_leak(
    reply: str | None,
    items: Sequence[Mapping[str, object]],
    threshold: float = LEAK_THRESHOLD,
    embed: Embedder | None = None,
) -> Leak:
    """`keyword_leak_rate_with_gate` (metrics.py@33e85bef): the gate first (a
    non-substantive reply fails even with no items), then the leaked share, whose count
    is recovered by rounding rate x total as the authors do."""
    if not is_substantive(reply):
        return Leak(0.0, 0, len(items), 1, "non_substantive_response")
    rate = leaks(reply, items, threshold, embed) / len(items) if items else 0.0
    return Leak(rate, round(rate * len(items)), len(items), 0)


def privacy_leak(
    reply: str | None,
    items: Sequence[Mapping[str, object]],
    threshold: float = LEAK_THRESHOLD,
    embed: Embedder | None = None,
) -> Leak:
    """`privacy_leak_rate` (metrics.py@33e85bef): no gate (a silent reply cannot leak);
    `hard_fail` 1 on any leak."""
    if not items:
        return Leak(0.0, 0, 0, 0)
    leaked = leaks(reply, items, threshold, embed)
    return Leak(leaked / len(items), leaked, len(items), int(leaked > 0))


# --- repetition tasks: tail diversity (metrics.py@a24ea9ce) ----------------------------

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


# --- local_recommendation_geo_shift (tasks/local_recommendation_geo_shift.py@03f5e860) -


def geo_reply_text(reply: str | None) -> str:
    """The text the geo-shift scorer reads: the reply's JSON `response` field when it
    has a non-empty one, else the whole reply (the runner's `parsed.get("response") or
    raw_response`)."""
    parsed = extract_json(reply)
    if isinstance(parsed, dict):
        response = parsed.get("response")
        if isinstance(response, str) and response:
            return response
    return reply or ""


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


# --- active_mistake_prevention: paired F1 (scripts/aggregate_eval.py@19bc3eec) --------


def paired_f1(warn_rate: float, foil_rate: float) -> float:
    """2wf / (w + f), 0 when w + f is 0: the harmonic mean of warn recall and foil
    precision (`_e6_paired_f1`)."""
    total = warn_rate + foil_rate
    return 2 * warn_rate * foil_rate / total if total > 0 else 0.0


@dataclass(frozen=True)
class PairedResult:
    """`_e6_paired_f1`'s summary, unrounded (the authors round to 4 places)."""

    n_pairs: int
    warn_recall: float
    foil_precision: float
    paired_correct: float
    paired_f1: float


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def e6_paired(rows: Iterable[tuple[str, Mapping[str, object]]]) -> PairedResult | None:
    """Warn/foil rows (query id, metrics) joined into pairs (`_e6_paired_f1`).

    The instance id is the query id after its second `:` (`uid:seq:instance`); it ends
    in `_warn` or `_foil` (other rows are skipped), the rest is the pair. A later row of
    the same pair and polarity replaces an earlier one. Warn recall is the mean of
    `correct_warn` (missing: 0) over warn rows, foil precision the mean of `correct_foil`
    over foil rows (each 0 when there are none), paired-correct the share of complete
    pairs with both >= 1. None when there are no rows.
    """
    pairs: dict[str, dict[str, Mapping[str, object]]] = defaultdict(dict)
    seen = False
    for query_id, metrics in rows:
        seen = True
        instance = query_id.split(":", 2)[-1]
        for polarity in ("warn", "foil"):
            if instance.endswith(f"_{polarity}"):
                pairs[instance[: -len(polarity) - 1]][polarity] = metrics
    if not seen:
        return None
    warn: list[float] = []
    foil: list[float] = []
    both: list[float] = []
    for pair in pairs.values():
        w = _number(pair["warn"].get("correct_warn", 0)) if "warn" in pair else None
        f = _number(pair["foil"].get("correct_foil", 0)) if "foil" in pair else None
        if w is not None:
            warn.append(w)
        if f is not None:
            foil.append(f)
        if w is not None and f is not None:
            both.append(1.0 if w >= 1 and f >= 1 else 0.0)
    w_rate, f_rate = _mean(warn), _mean(foil)
    return PairedResult(len(pairs), w_rate, f_rate, _mean(both), paired_f1(w_rate, f_rate))


# --- active_mistake_prevention: one row (e6_active_mistake_prevention.py@4206dddf) ----

_WARN_PHRASES: Final = (
    r"warn(?:ing)?", "caution", r"heads?\s*up", r"be\s+aware", r"be\s+careful", "careful",
    "alert", "attention", "flag", r"concern(?:ed)?", "worried", "worry", r"note\s+that",
    r"keep\s+in\s+mind", r"bear\s+in\s+mind", r"make\s+sure", r"might\s+want\s+to",
    r"you\s+may\s+want\s+to", r"you\s+might\s+want\s+to", r"wanted\s+to\s+let\s+you\s+know",
    r"just\s+so\s+you\s+know", r"double[-\s]?check", r"before\s+you", "contradic", "conflict",
    "mismatch", r"don'?t\s+forget", r"heads[-\s]?up", r"actually[,\s]+",
)  # fmt: skip
WARN_PHRASE: Final = re.compile(r"\b(" + "|".join(_WARN_PHRASES) + r")\b", re.IGNORECASE)
"""What counts as a warning in a reply (`_WARN_PHRASE_RE`): whole-word phrases, so
`flagged` or `contradicts` do not match while `flag` and `contradic` would."""
MENTION_COVERAGE_MIN: Final = 0.5


def _mentions(text: str, term: str) -> bool:
    """`_term_present`: the stripped, lower-cased term as a substring; empty never."""
    term = term.strip().lower()
    return bool(term) and term in text.lower()


@dataclass(frozen=True)
class MistakeRow:
    """`score_e6_instance`'s metrics of one warn or foil row (coverage unrounded; the
    authors round it to 3 places)."""

    polarity: str
    warning_issued: bool
    regex_warn: bool
    self_warn: bool
    must_mention_coverage: float
    leak: bool
    substantive: bool
    correct: bool

    def metrics(self) -> dict[str, object]:
        """The row's metrics under the authors' keys (`accuracy_value` reads `correct`,
        `e6_paired` reads `correct_warn` and `correct_foil`)."""
        metrics: dict[str, object] = {
            "polarity": self.polarity,
            "warning_issued": int(self.warning_issued),
            "regex_warn": int(self.regex_warn),
            "self_warn": int(self.self_warn),
            "must_mention_coverage": self.must_mention_coverage,
            "leak": int(self.leak),
            "correct_warn": int(self.correct) if self.polarity == "warn" else 0,
            "correct_foil": int(self.correct) if self.polarity == "foil" else 0,
            "correct": int(self.correct),
            "response_is_substantive": int(self.substantive),
        }
        if self.polarity == "foil" and not self.substantive:
            metrics["skip_reason"] = "non_substantive_foil"
        return metrics


def mistake_row(
    text: str,
    warned: object,
    polarity: str,
    must_mention: Sequence[str] = (),
    must_not_mention: Sequence[str] = (),
) -> MistakeRow:
    """One active-mistake-prevention row (`score_e6_instance`, the same at 11d3bf48).

    `text` is the reply's `response` field or the whole reply (`geo_reply_text`), and
    `warned` the reply's own `warned` field (truthy = a warning). A warning is issued
    when `WARN_PHRASE` matches or `warned` is truthy; coverage is the share of
    `must_mention` terms the text holds (1 with none); a leak is any `must_not_mention`
    term in it. A warn row is correct iff warned, coverage >= 0.5 and no leak (no gate);
    a foil row iff the text is substantive (`is_substantive`: 15 distinct tokens),
    did not warn and did not leak; any other polarity is never correct.
    """
    regex_warn = WARN_PHRASE.search(text) is not None
    self_warn = bool(warned)
    issued = regex_warn or self_warn
    terms = [str(term) for term in must_mention]
    coverage = sum(_mentions(text, t) for t in terms) / len(terms) if terms else 1.0
    leak = any(_mentions(text, str(term)) for term in must_not_mention)
    substantive = is_substantive(text)
    polarity = polarity.lower()
    if polarity == "warn":
        correct = issued and coverage >= MENTION_COVERAGE_MIN and not leak
    elif polarity == "foil":
        correct = substantive and not issued and not leak
    else:
        correct = False
    return MistakeRow(polarity, issued, regex_warn, self_warn, coverage, leak, substantive, correct)


# --- 0-100 accuracy (scripts/aggregate_eval.py@19bc3eec `_accuracy_value`) ------------

ScaleKind = Literal[
    "fraction",
    "inverted_fraction",
    "boolean",
    "pr_combined",
    "pref_align_gated",
    "0to10",
    "0to3",
    "signed_unit",
    "paired_correct",
    "agentic_pass_rate",
]
FAILED_STATUSES: Final = frozenset({"failed_writes", "failed_quality", "error", "no_result"})
HARD_RULE_VIOLATIONS: Final = (
    "pr_privacy_leak_violated",
    "pr_avoid_leak_violated",
    "pr_stale_preference_use_violated",
)


def _number(value: object) -> float | None:
    """`float(value)` where the authors' would succeed; None otherwise."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _counts(metrics: Mapping[str, object], *keys: str) -> float:
    return sum(_number(metrics.get(key)) or 0.0 for key in keys)


def accuracy_value(
    kind: ScaleKind, key: str, metrics: Mapping[str, object], status: str = "ok"
) -> float | None:
    """One row's headline on the authors' 0-100 scale; None leaves the row out.

    In order: a failed status (`FAILED_STATUSES`) is 0; a removal row skipped for low
    personalization is None; `agentic_pass_rate` is 100 x passed / (passed + failed)
    over tool-call, final-state and output-quality counts (0 with none); `paired_correct`
    is 100 x `correct` (None if missing); a non-substantive reply
    (`non_substantive_response` truthy, or `response_is_substantive` present and falsy)
    is 0; a missing `metrics[key]` is None. Then by kind: `inverted_fraction` 100(1 - v);
    `boolean` 100 or 0; `pr_combined` 100 v / `pr_combined_max_possible` (None without
    a positive max); `pref_align_gated` 0 on any hard-rule violation, else 100 v / 10;
    `0to10` 100 v / 10; `0to3` 100 v / 3; `signed_unit` 50(1 + v) with v clamped to
    [-1, 1]; `fraction` (and anything else) 100 v.
    """
    if status in FAILED_STATUSES:
        return 0.0
    if metrics.get("removal_status") == "skipped_low_personalization":
        return None
    if kind == "agentic_pass_rate":
        passed = _counts(
            metrics, "tool_call_rules_pass", "final_state_rules_passed", "output_quality_passed"
        )
        failed = _counts(
            metrics, "tool_call_rules_fail", "final_state_rules_failed", "output_quality_failed"
        )
        return 100.0 * passed / (passed + failed) if passed + failed > 0 else 0.0
    if kind == "paired_correct":
        correct = _number(metrics.get("correct"))
        return None if correct is None else 100.0 * correct
    substantive = metrics.get("response_is_substantive")
    if metrics.get("non_substantive_response") or (substantive is not None and not substantive):
        return 0.0
    raw = metrics.get(key)
    if raw is None:
        return None
    if kind == "boolean":
        return 100.0 if raw else 0.0
    value = _number(raw)
    if value is None:
        return None
    if kind == "inverted_fraction":
        return 100.0 * (1.0 - value)
    if kind == "pr_combined":
        most = _number(metrics.get("pr_combined_max_possible"))
        return 100.0 * value / most if most and most > 0 else None
    if kind == "pref_align_gated":
        if any(metrics.get(flag) for flag in HARD_RULE_VIOLATIONS):
            return 0.0
        return 100.0 * value / 10.0
    if kind == "0to10":
        return 100.0 * value / 10.0
    if kind == "0to3":
        return 100.0 * value / 3.0
    if kind == "signed_unit":
        return 50.0 * (1.0 + max(-1.0, min(1.0, value)))
    return 100.0 * value


def micro_accuracy(values: Iterable[float | None]) -> float | None:
    """The published Overall: every scored row counts once (rows that are None are left
    out), the "ALL (micro, row-weighted)" row of aggregate_eval@19bc3eec, its sole
    headline (the macro rows were removed there)."""
    scored = [v for v in values if v is not None]
    return sum(scored) / len(scored) if scored else None


# --- polarity-aware rubric combiner (personalization_rubric.py@8fd0dd9b) --------------

DIM_POLARITY: Final[Mapping[str, str]] = {
    "preference_alignment": "+",
    "avoid_leak": "-",
    "privacy_leak": "-",
    "over_personalization": "-",
    "subtle_personalization": "+",
    "stale_preference_use": "-",
    "relationship_awareness": "+",
    "voice_match": "+",
    "voice_self_consistency": "+",
}
"""Polarity of each defined dimension (`_PERSONALIZATION_DIM_DEFS`,
evaluation/prompts.py@dc56d425). A dimension not listed (`telegraph_avoidance`) is `+`."""
DIM_ALIAS: Final[Mapping[str, str]] = {"relationship_aware": "relationship_awareness"}
HARD_RULE_DIMS: Final = frozenset(
    {"avoid_leak", "privacy_leak", "stale_preference_use", "telegraph_avoidance"}
)
PENALTY_PER_HARD_FAIL: Final = 1.5
PENALTY_PER_SOFT_NEG: Final = 1.5
DIM_MAX: Final = 3.0


@dataclass(frozen=True)
class Combined:
    """`combine_dim_scores_with_polarity`'s four outputs."""

    positive_score: float
    negative_penalty: float
    combined: float
    max_possible: float


def polarity(dim: str, polarities: Mapping[str, str] = DIM_POLARITY) -> str:
    """A dimension's polarity, `+` when unknown, looked up again under its alias."""
    found = polarities.get(dim, "+")
    if found == "+" and dim in DIM_ALIAS:
        found = polarities.get(DIM_ALIAS[dim], "+")
    return found


def combine_dim_scores_with_polarity(
    scores: Mapping[str, object],
    applicable: Mapping[str, bool],
    polarities: Mapping[str, str] = DIM_POLARITY,
) -> Combined:
    """The rubric's combined score (personalization_rubric.py@8fd0dd9b).

    Over the applicable dimensions: each `+` one adds its numeric `<dim>_score` (0-3;
    none, nothing); each `-` hard-rule one costs 1.5 when `<dim>_hard_fail` is truthy;
    each other `-` one costs 1.5 x max(0, 3 - `<dim>_score`) / 3 when scored. Combined =
    clamp(positive - penalty, 0, 3 x the number of applicable `+` dimensions); that
    maximum is `max_possible` (the `pr_combined_max_possible` of `accuracy_value`).
    """
    on = [dim for dim, is_on in applicable.items() if is_on]
    positive = [dim for dim in on if polarity(dim, polarities) == "+"]
    negative = [dim for dim in on if polarity(dim, polarities) != "+"]
    gained = sum(
        value for dim in positive if (value := _score(scores.get(f"{dim}_score"))) is not None
    )
    penalty = 0.0
    for dim in negative:
        if dim in HARD_RULE_DIMS:
            if _score(scores.get(f"{dim}_hard_fail")):
                penalty += PENALTY_PER_HARD_FAIL
        elif (value := _score(scores.get(f"{dim}_score"))) is not None:
            penalty += max(0.0, DIM_MAX - value) / DIM_MAX * PENALTY_PER_SOFT_NEG
    most = DIM_MAX * len(positive)
    return Combined(gained, penalty, max(0.0, min(most, gained - penalty)), most)


def _score(value: object) -> float | None:
    """A number the authors' `isinstance(v, (int, float))` accepts (bools are ints)."""
    return float(value) if isinstance(value, (bool, int, float)) else None
