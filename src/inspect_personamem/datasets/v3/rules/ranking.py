"""How PersonaMem-v3 reads a reply's ranking and scores it: graded NDCG@k over a candidate
slate, and the lifecycle task's match rate and score.

Sources (bowen-upenn/PersonaMem-v3; full hashes in the shared COMMITS.md):

- the reply is read by `extract_json_from_response`, data_preparation/utils.py@20776117;
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
  so it cannot know how many fillers there are). It reproduces the one number the
  authors state about it: with a filler grade of 1, a slate whose only positive is
  missed scores ~0.75 ("the graded-NDCG ~75% floor", recompute_ndcg.py@8e2a111f).
  Whether they clamp a negative NDCG at 0 is not known (`floor_at_zero`, off). A
  repeated item gains the filler grade after its first place, so no reply scores above
  the ideal (their permutation check dedups, so repeats reach the function).
- lifecycle: evaluation/tasks/e5_horizon_lifecycle.py@b8d90778 (`compute_e5_metrics`,
  the runner's pairing of pre and post rows); the same code at 0f0f386e.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

POSITIVE_GRADE: Final = 2.0
"""Grade of the held-out item (recsys, hidden persona) or a directive positive (@AI)."""
HARD_NEGATIVE_GRADE: Final = -2.0
"""Grade of a hard negative (recsys, hidden persona) or a carve-out (@AI)."""
FILLER_GRADE: Final = 1.0
"""Grade of every other index (`_NDCG_REL_FILLER`; its value is the +1 the authors'
comments give)."""
NDCG_K: Final = 5
"""The headline cut-off (`ndcg_at_5`)."""

AT_AI_TASK: Final = "at_ai_directive_followup"
HIDDEN_PERSONA_TASK: Final = "hidden_persona_recommendation"
"""The two ranking tasks read differently here; the three are `tasks.RANKING_TASKS`."""

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


def ranking_key(task_type: str) -> str:
    """`ranked_indices` for the @AI task, `ranked_indexes` for the others (the key each
    task's prompt asks for; recompute_ndcg.py@8e2a111f `_ranking`)."""
    return "ranked_indices" if task_type == AT_AI_TASK else "ranked_indexes"


def task_ranking(reply: str | None, task_type: str, n_candidates: int) -> list[object]:
    """A ranking task's reply read as the published recompute read it."""
    return parse_ranking(
        reply,
        key=ranking_key(task_type),
        n_candidates=n_candidates,
        require_permutation=task_type == AT_AI_TASK,
    )


@dataclass(frozen=True)
class SlateLabels:
    """What a ranking instance marks on its slate (`_labels_for_user`)."""

    positives: frozenset[int]
    hard_negatives: frozenset[int]
    n_candidates: int


def slate_labels(task_type: str, instance: Mapping[str, object]) -> SlateLabels:
    """The labels of one ranking instance (`instance_full` of test.json).

    @AI: `positive_indices` and `carveout_indices`. Recsys and hidden persona: the
    single `held_out_idx` (no positive when it is not an integer) and
    `hard_negative_idxs`. `n_candidates` is the length of `candidates`
    (recompute_ndcg.py@8e2a111f `_labels_for_user`).
    """
    candidates = instance.get("candidates")
    n = len(candidates) if isinstance(candidates, list) else 0
    if task_type == AT_AI_TASK:
        positives = _int_set(instance.get("positive_indices"))
        hard = _int_set(instance.get("carveout_indices"))
    else:
        held_out = instance.get("held_out_idx")
        positives = frozenset({held_out}) if isinstance(held_out, int) else frozenset()
        hard = _int_set(instance.get("hard_negative_idxs"))
    return SlateLabels(positives, hard, n)


def _int_set(value: object) -> frozenset[int]:
    if not isinstance(value, list):
        return frozenset()
    return frozenset(item for item in value if isinstance(item, int))


def filler_grade_for(task_type: str, hard_negatives: Collection[int]) -> float:
    """0 for a hidden-persona slate without hard negatives (binary relevance, which
    "avoids the graded-NDCG ~75% floor"), else `FILLER_GRADE` (recompute_ndcg.py@8e2a111f
    `_new_ndcg`)."""
    if task_type == HIDDEN_PERSONA_TASK and not hard_negatives:
        return 0.0
    return FILLER_GRADE


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
    floor_at_zero: bool = False,
) -> float:
    """Graded NDCG@k of a ranking over a slate (reconstructed, see the module docstring).

    Each of the first `k` ranked items gains its grade over log2(rank + 1) (rank from 1):
    `POSITIVE_GRADE` for a positive, else `HARD_NEGATIVE_GRADE` for a hard negative, else
    `filler_grade` (any other item: a filler, an index off the slate, a repeat, a
    non-integer). The ideal list is `min(len(positives), k)` positives followed by filler
    grades up to `k`. NDCG = DCG / ideal DCG, 0 where the ideal is not positive (no
    positives and a filler grade of 0, or `k` <= 0). The value may be negative when hard
    negatives lead; `floor_at_zero` clamps it at 0 (unknown whether the authors do).
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


def task_ndcg(reply: str | None, task_type: str, labels: SlateLabels, k: int = NDCG_K) -> float:
    """One ranking task's NDCG@k as the published recompute scored it: the reply read by
    `task_ranking`, the filler grade by `filler_grade_for` (recompute_ndcg.py@8e2a111f
    `_new_ndcg`). The published value is this times 100."""
    ranked = task_ranking(reply, task_type, labels.n_candidates)
    grade = filler_grade_for(task_type, labels.hard_negatives)
    return graded_ndcg_at_k(ranked, labels.positives, labels.hard_negatives, k, filler_grade=grade)


# --- short_vs_long_term_lifecycle ----------------------------------------------------

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
    (`rules.accuracy_value`, kind `signed_unit`) clamps."""
    return pre_match_rate - post_match_rate
