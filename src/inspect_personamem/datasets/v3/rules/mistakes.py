"""`active_mistake_prevention`'s rules: one warn or foil row
(`score_e6_instance`, evaluation/tasks/e6_active_mistake_prevention.py@4206dddf) and the
pairs' F1 (`_e6_paired_f1`, scripts/aggregate_eval.py@19bc3eec); and the rule object
that scores a row.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.reading.reply import (
    extract_json,
    is_substantive,
    response_text,
)
from inspect_personamem.datasets.v3.reading.scale import Headline, number
from inspect_personamem.datasets.v3.rules.score import PLAIN_REPLY, Rule, RuleScore, instance_of


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
        w = number(pair["warn"].get("correct_warn", 0)) if "warn" in pair else None
        f = number(pair["foil"].get("correct_foil", 0)) if "foil" in pair else None
        if w is not None:
            warn.append(w)
        if f is not None:
            foil.append(f)
        if w is not None and f is not None:
            both.append(1.0 if w >= 1 and f >= 1 else 0.0)
    w_rate, f_rate = _mean(warn), _mean(foil)
    return PairedResult(len(pairs), w_rate, f_rate, _mean(both), paired_f1(w_rate, f_rate))


# --- one row (e6_active_mistake_prevention.py@4206dddf) ---------------------------

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

    `text` is the reply's `response` field or the whole reply (`response_text`), and
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


class MistakePrevention(Rule):
    """One warn or foil row (`mistake_row`), `correct`; the pairs' F1 is a metric over
    the rows (`scoring.metrics.v3_paired_f1`). The gate fires on a foil row alone."""

    def score(
        self, reply: str, fields: Mapping[str, Any], query_id: str, headline: Headline
    ) -> RuleScore:
        parsed = extract_json(reply)
        warned = parsed.get("warned") if isinstance(parsed, dict) else None
        frame = fields.get("expected_warning_frame")
        frame = frame if isinstance(frame, dict) else {}
        row = mistake_row(
            response_text(reply),
            warned,
            str(fields.get("polarity") or ""),
            [str(t) for t in frame.get("must_mention") or []],
            [str(t) for t in frame.get("must_not_mention") or []],
        )
        metrics = row.metrics()
        return RuleScore(
            float(row.correct),
            headline.accuracy(metrics),
            metrics,
            row.substantive,
            gated=row.polarity == "foil" and not row.substantive,
            join={"kind": "mistake", "pair": instance_of(query_id), "side": row.polarity},
        )

    def missing(self, fields: Mapping[str, Any]) -> str:
        if fields.get("polarity") not in ("warn", "foil"):
            return f"field `polarity`: {fields.get('polarity')!r}, not 'warn' or 'foil'"
        return ""

    def replies(self, instance: Mapping[str, Any]) -> tuple[str, str]:
        """A warning naming every `must_mention` term on a warn row; on a foil row a
        substantive reply that neither warns nor names a `must_not_mention` term; the
        low one the other side's."""
        frame = instance.get("expected_warning_frame") or {}
        terms = ", ".join(str(t) for t in frame.get("must_mention") or [])
        warning = json.dumps({"warned": True, "response": f"Heads up about {terms}."})
        quiet = json.dumps({"warned": False, "response": PLAIN_REPLY})
        return (warning, quiet) if instance.get("polarity") == "warn" else (quiet, warning)
