"""How PersonaMem-v3 reads a reply's ranking and scores it: graded NDCG@k over a candidate
slate (the three ranking tasks, one `Slate` rule each: the key their reply gives its
ranking under, and how their instance marks the slate).

Sources (bowen-upenn/PersonaMem-v3; full hashes in the shared COMMITS.md):

- the reply is read by `extract_json_from_response` (`reading.reply.extract_json`);
- which key holds the ranking, and the identity fallback of an invalid permutation,
  results/_scripts/recompute_ndcg.py@8e2a111f (`_ranking`, `_labels_for_user`,
  `_new_ndcg`), the script that recomputed the published NDCG@5;
- the grades (+2 positive, -2 hard negative or carve-out, +1 anything else) from
  evaluation/task_registry.py@8e2a111f (`PRIMARY_METRIC` comments) and
  evaluation/tasks/e2_at_ai_followup.py (`compute_e2_metrics`, newest stored copy);
- the body of `_graded_ndcg_at_k` (evaluation/tasks/personalized_recommendation.py) is in
  no readable version: the stored copies (11d3bf48, c0b43289) predate it. Our
  `graded_ndcg_at_k` is a reconstruction: linear gains, log2 discount, the ideal list
  made of the positives then filler grades (the function is not given the slate size,
  so it cannot know how many fillers there are). It reproduces the numbers the
  authors state about it (EVAL.md@8e2a111f, "Ranking-task headline unification"):
  grades +2 / +1 / -2, "normalized by the ideal ordering, clamped `[0,1]`"; on a 16-item
  slate with one held-out item and no hard negative, the held-out item last 0.747 (the
  "graded-NDCG ~75% floor" of recompute_ndcg.py@8e2a111f) and a random order ~0.793;
  binary (filler 0) random ~0.18; and, as issue 49 quotes AUDIT.md, "7 hard negatives:
  random ~12%", which follows only with the clamp (unfloored, -0.19; floored, 0.12).
  tests/datasets/v3/test_v3_ndcg_audit.py simulates each. A negative NDCG is therefore
  floored at 0 (`floor_at_zero`, on); the clamp at 1 never acts, as a repeated item
  gains the filler grade after its first place, so no reply scores above the ideal
  (their permutation check dedups, so repeats reach the function).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from inspect_personamem.datasets.v3.reading.reply import extract_json, is_substantive
from inspect_personamem.datasets.v3.reading.scale import Headline
from inspect_personamem.datasets.v3.rules.score import Rule, RuleScore, candidate_count

POSITIVE_GRADE: Final = 2.0
"""Grade of the held-out item (recsys, hidden persona) or a directive positive (@AI)."""
HARD_NEGATIVE_GRADE: Final = -2.0
"""Grade of a hard negative (recsys, hidden persona) or a carve-out (@AI)."""
FILLER_GRADE: Final = 1.0
"""Grade of every other index (`_NDCG_REL_FILLER`; its value is the +1 the authors'
comments give)."""
NDCG_K: Final = 5
"""The headline cut-off (`ndcg_at_5`)."""


def _is_permutation(ranked: object, n_candidates: int) -> bool:
    """`sorted(set(ranked)) == list(range(n))`, the authors' check; a list whose items
    cannot be hashed or ordered (which would raise in theirs) is not one."""
    if not isinstance(ranked, list):
        return False
    try:
        return sorted(set(ranked)) == list(range(n_candidates))
    except TypeError:
        return False


def parse_ranking(
    reply: str | None, *, key: str, n_candidates: int, require_permutation: bool
) -> list[object]:
    """The ranking a reply gives under `key`, as the authors read it.

    The reply's JSON (`extract_json`; anything but an object counts as `{}`); its `key`
    (a missing or falsy value counts as `[]`). With `require_permutation` (the @AI task,
    recompute_ndcg.py@8e2a111f `_ranking`, and the lifecycle runner,
    e5_horizon_lifecycle.py@b8d90778) a value that is not a permutation of
    `0..n_candidates-1` becomes the identity order `[0, 1, ..., n-1]`. Without it (recsys,
    hidden persona) the list is kept as it is: duplicates, out-of-range and non-integer
    items included, as the authors keep them; a value that is not a list is `[]`.
    """
    parsed = extract_json(reply)
    fields: Mapping[str, object] = parsed if isinstance(parsed, dict) else {}
    ranked = fields.get(key) or []
    if require_permutation and not _is_permutation(ranked, n_candidates):
        return list(range(n_candidates))
    return list(ranked) if isinstance(ranked, list) else []


@dataclass(frozen=True)
class SlateLabels:
    """What a ranking instance marks on its slate (`_labels_for_user`)."""

    positives: frozenset[int]
    hard_negatives: frozenset[int]
    n_candidates: int


def _int_set(value: object) -> frozenset[int]:
    if not isinstance(value, list):
        return frozenset()
    return frozenset(item for item in value if isinstance(item, int))


def _discount(position: int) -> float:
    """The weight of 0-based rank `position`: 1 / log2(position + 2)."""
    return 1.0 / math.log2(position + 2)


def graded_ndcg_at_k(
    ranked: Sequence[object],
    positives: Collection[int],
    hard_negatives: Collection[int],
    k: int = NDCG_K,
    *,
    filler_grade: float = FILLER_GRADE,
    floor_at_zero: bool = True,
) -> float:
    """Graded NDCG@k of a ranking over a slate (reconstructed, see the module docstring).

    Each of the first `k` ranked items gains its grade over log2(rank + 1) (rank from 1):
    `POSITIVE_GRADE` for a positive, else `HARD_NEGATIVE_GRADE` for a hard negative, else
    `filler_grade` (any other item: a filler, an index off the slate, a repeat, a
    non-integer). The ideal list is `min(len(positives), k)` positives followed by filler
    grades up to `k`. NDCG = DCG / ideal DCG, 0 where the ideal is not positive (no
    positives and a filler grade of 0, or `k` <= 0). Where hard negatives lead the value
    falls below 0, which `floor_at_zero` (the default: "clamped `[0,1]`", EVAL.md@8e2a111f)
    clamps to 0.
    """
    if k <= 0:
        return 0.0
    dcg = sum(
        _grade(item, positives, hard_negatives, filler_grade, repeat=_repeats(ranked, position))
        * _discount(position)
        for position, item in enumerate(ranked[:k])
    )
    n_positive = min(len(positives), k)
    ideal = [POSITIVE_GRADE] * n_positive + [filler_grade] * (k - n_positive)
    ideal_dcg = sum(grade * _discount(position) for position, grade in enumerate(ideal))
    if ideal_dcg <= 0:
        return 0.0
    value = dcg / ideal_dcg
    return max(0.0, value) if floor_at_zero else value


def _repeats(ranked: Sequence[object], position: int) -> bool:
    """Whether the item at `position` came earlier in `ranked`: a repeat gains only the
    filler grade, so a reply naming a positive twice cannot score above the ideal (the
    authors' check, `sorted(set(ranked))`, lets repeats through)."""
    return ranked[position] in ranked[:position]


def _grade(
    item: object,
    positives: Collection[int],
    hard: Collection[int],
    filler_grade: float,
    *,
    repeat: bool = False,
) -> float:
    if repeat:
        return filler_grade
    try:
        if item in positives:
            return POSITIVE_GRADE
        if item in hard:
            return HARD_NEGATIVE_GRADE
    except TypeError:  # an unhashable item (a list or an object in the JSON)
        pass
    return filler_grade


def ranking_reply(key: str, order: Sequence[int]) -> str:
    """A reply giving `order` under `key`, as a ranking task's prompt asks for it."""
    return json.dumps({key: list(order)})


@dataclass(frozen=True)
class Slate(Rule):
    """A ranking task's rule: graded NDCG@5 over the slate as the published recompute
    scored it (recompute_ndcg.py@8e2a111f `_ranking`, `_labels_for_user`, `_new_ndcg`).

    `key` is the reply's key the task's prompt asks for (`ranked_indices` for the @AI
    task, `ranked_indexes` for the others). A `directive` slate (@AI) is labelled by
    `positive_indices` and `carveout_indices` and its ranking must be a permutation
    (else the identity order); the others by the single `held_out_idx` and
    `hard_negative_idxs`, the ranking kept as given. `binary_without_negatives`: a slate
    without hard negatives is graded with filler 0 (binary relevance, which "avoids the
    graded-NDCG ~75% floor"; hidden persona)."""

    key: str
    directive: bool = False
    binary_without_negatives: bool = False

    def ranking(self, reply: str | None, n_candidates: int) -> list[object]:
        """The reply read as the published recompute read it (`parse_ranking`)."""
        return parse_ranking(
            reply, key=self.key, n_candidates=n_candidates, require_permutation=self.directive
        )

    def labels(self, instance: Mapping[str, object]) -> SlateLabels:
        """The labels of one ranking instance (`instance_full` of test.json);
        `n_candidates` is the length of `candidates`."""
        candidates = instance.get("candidates")
        n = len(candidates) if isinstance(candidates, list) else 0
        if self.directive:
            positives = _int_set(instance.get("positive_indices"))
            hard = _int_set(instance.get("carveout_indices"))
        else:
            held_out = instance.get("held_out_idx")
            positives = frozenset({held_out}) if isinstance(held_out, int) else frozenset()
            hard = _int_set(instance.get("hard_negative_idxs"))
        return SlateLabels(positives, hard, n)

    def filler_grade(self, hard_negatives: Collection[int]) -> float:
        """0 for a `binary_without_negatives` slate without hard negatives, else
        `FILLER_GRADE`."""
        if self.binary_without_negatives and not hard_negatives:
            return 0.0
        return FILLER_GRADE

    def ndcg(self, reply: str | None, labels: SlateLabels, k: int = NDCG_K) -> float:
        """The task's NDCG@k as the published recompute scored it. The published value is
        this times 100."""
        ranked = self.ranking(reply, labels.n_candidates)
        grade = self.filler_grade(labels.hard_negatives)
        return graded_ndcg_at_k(
            ranked, labels.positives, labels.hard_negatives, k, filler_grade=grade
        )

    def score(
        self, reply: str, fields: Mapping[str, Any], query_id: str, headline: Headline
    ) -> RuleScore:
        labels = replace(self.labels(fields), n_candidates=candidate_count(fields))
        ndcg = self.ndcg(reply, labels)
        metrics: dict[str, object] = {"ndcg_at_5": ndcg}
        return RuleScore(ndcg, headline.accuracy(metrics), metrics, is_substantive(reply))

    def missing(self, fields: Mapping[str, Any]) -> str:
        if candidate_count(fields) <= 0:
            return "field `candidates`: no candidate slate"
        labels = self.labels(fields)
        if self.directive and not labels.positives | labels.hard_negatives:
            # a "less of it" directive has carve-outs alone: its ranking is still graded
            return "fields `positive_indices` and `carveout_indices`: neither names an index"
        if not self.directive and not labels.positives:
            return "field `held_out_idx`: not an integer index on the slate"
        return ""

    def replies(self, instance: Mapping[str, Any]) -> tuple[str, str]:
        """The slate's positives first, its hard negatives (carve-outs) last, the rest in
        slate order between (@AI: a whole permutation); the low one reversed."""
        labels = self.labels(instance)
        middle = [
            i
            for i in range(labels.n_candidates)
            if i not in labels.positives and i not in labels.hard_negatives
        ]
        best = [*sorted(labels.positives), *middle, *sorted(labels.hard_negatives)]
        return ranking_reply(self.key, best), ranking_reply(self.key, best[::-1])
