"""The per-dimension rubric judge (`-T judge=per_dimension`; `pr_combined`: three
over-personalization and nine agentic types): one judge call per judged dim the task's
`APPLICABILITY` row turns on (personalization_rubric.py@8fd0dd9b `score`), the hard
rules computed without a judge (`rules.leaks.privacy_leak`: `avoid_leak` over the
+-24 h slice's `avoid` items, `privacy_leak` over `privacy_flagged_prefs`), combined
by `combine_rubric`: 100 x combined / (3 x the positive dims).

Differences: (1) but for the agentic types, whose Source A is rebuilt from the persona as
the authors' (`judges.source_a`), the ground truth is read from the instance
(`top_k_relevant_prefs` as `user_top_preferences`, `gt_slice.avoid` as
`user_negatives_nearby`, `privacy_flagged_prefs`), where the authors rebuild it from the
backend (`build_source_a`), so the contradictions, style references and friends are
absent; `stale_preference_use` never fails; (2) the leak similarity is the authors'
token-Jaccard fallback, not MiniLM. `telegraph_avoidance` is `telegraph_check` (their
`_validate_no_creepy_phrasing`, llm_postprocess.py, the stored copy of 192,699
characters whose commit the index does not show), phrases only: their runners' ground
truth (`build_source_a`) holds no held-out preference for its paste check. A `scenario`
rubric (`over_personalization_context_shift`) adds the scenario as their rejudge script
(scripts/rejudge_existing.py) rebuilds it: `query_text` with the scenario's name and
notes, `scenario_off_limits_preferences` from `forbidden_items`,
`user_opted_out_topic` from `carve_out`. The agentic types judge the reply's
`final_answer`, `response`, `summary` or `reply_to_user`, the first truthy, a dict or
list JSON-dumped (`reading.reply.first_text`, tasks/agentic_tasks.py@8e2a111f), the
others its `response` read the same way. A type with no
APPLICABILITY row (`agentic_community_post`) has no maximum: unscored, as the authors'
aggregate leaves it out. The newest pipeline replaced these per-dim calls with one
unified 0-10 judge call, which the published numbers come from: that judge
(`judges.unified`) is the default, this one `-T judge=per_dimension`.

A reply that lacks a dim's number is `Unreadable`, never a 0. Where the authors' own
script writes a number for such a reply (a rubric dim that is missing still counts in
`combined_max_possible`, so the row scores lower as if that dim were 0),
`combine_rubric` says so: `authors` is what their script writes, `combined` is None,
and the row is counted apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from inspect_ai.util import collect

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Call,
    Judge,
    JudgeChoice,
    JudgedRow,
    JudgePrompt,
    Judging,
    Status,
)
from inspect_personamem.datasets.v3.judges.preface import JUDGE_PREFACE, dumps
from inspect_personamem.datasets.v3.judges.rubric_texts import (
    BINARY_GUIDANCE,
    DIM_DEFAULT_SPEC,
    DIM_PROMPT_TEMPLATE,
    JUDGED_DIMS,
    PERSONALIZATION_DIM_DEFS,
    SCALE_GUIDANCE,
    VOICE_MATCH_GUIDANCE,
    VOICE_MATCH_OUTPUT_BLOCK,
    Applicability,
)
from inspect_personamem.datasets.v3.judges.source_a import SOURCE_A_KEY
from inspect_personamem.datasets.v3.reading.reply import (
    Unreadable,
    finite,
    first_text,
    reply_object,
)
from inspect_personamem.datasets.v3.rules.leaks import privacy_leak
from inspect_personamem.datasets.v3.rules.polarity import (
    Combined,
    combine_dim_scores_with_polarity,
)


def judged_dims(applicable: Applicability) -> tuple[str, ...]:
    """The dims a judge is asked about under an `APPLICABILITY` row, in the authors'
    order."""
    return tuple(dim for dim in JUDGED_DIMS if applicable.get(dim))


def dim_spec(dim: str) -> tuple[str, str, str]:
    """`_PERSONALIZATION_DIM_DEFS.get(dim, default)`: no alias, so `relationship_aware`
    gets the default spec (as the authors' prompt does)."""
    return PERSONALIZATION_DIM_DEFS.get(dim, DIM_DEFAULT_SPEC)


def dim_prompt(dim: str, ground_truth: Mapping[str, object], agent_output: str) -> str:
    """`judge_personalization_dim_prompt(dim, ground_truth, agent_output)` (prompts.py@
    dc56d425): the preface, the dim's scale and question, the ground truth as indented
    JSON, the agent's output, and the output schema (`fail` for a binary dim, `score`
    otherwise, three sub-scores and `score` for `voice_match`)."""
    scale, question, _ = dim_spec(dim)
    hard = "binary" in scale
    if dim == "voice_match":
        output_block, guidance = VOICE_MATCH_OUTPUT_BLOCK, VOICE_MATCH_GUIDANCE
    else:
        key = "fail" if hard else "score"
        output_block = (
            "```json\n" + f'{{"{key}": <number>, "reasoning": "<one short paragraph>"}}\n' + "```"
        )
        guidance = BINARY_GUIDANCE if hard else SCALE_GUIDANCE
    return DIM_PROMPT_TEMPLATE.format(
        _JUDGE_PREFACE=JUDGE_PREFACE,
        dim=dim,
        scale=scale,
        question=question,
        gt=dumps(ground_truth),
        agent_output=agent_output,
        guidance=guidance,
        output_block=output_block,
    )


@dataclass(frozen=True)
class DimScore:
    """One rubric dim as the authors read it (personalization_rubric.py@8fd0dd9b
    `score`): the reply's `score`, a number, NOT clamped (they do not clamp);
    `in_scale` says whether it lies on the dim's scale. `voice_match` also keeps the
    three sub-scores the reply gives (the authors read `score`, not their mean)."""

    dim: str
    value: float
    in_scale: bool
    sub_scores: Mapping[str, float] = field(default_factory=dict)


VOICE_SUB_SCORES: Final = ("identity_coherence", "idiolect_fidelity", "audience_appropriateness")
DIM_SCALE_MAX: Final = 3.0


def read_dim(dim: str, reply: str | None) -> DimScore | Unreadable:
    """A per-dim judge's reply, read as 8fd0dd9b reads it."""
    parsed = reply_object(reply)
    if isinstance(parsed, Unreadable):
        return parsed
    value = finite(parsed.get("score"))
    if value is None:
        return Unreadable("no_number", "score")
    subs: dict[str, float] = {}
    if dim == "voice_match":
        for sub in VOICE_SUB_SCORES:
            sub_value = finite(parsed.get(sub))
            if sub_value is not None:
                subs[sub] = sub_value
    return DimScore(dim, value, 0.0 <= value <= DIM_SCALE_MAX, subs)


@dataclass(frozen=True)
class RubricResult:
    """One row's rubric: `combined` from the dims read (None when any applicable judged
    dim is unreadable: the row is then unscored); `authors` what the authors' script
    writes all the same (a missing dim adds nothing but still counts in the maximum);
    `unreadable` the dims the judge did not give."""

    combined: Combined | None
    authors: Combined
    unreadable: tuple[str, ...]


def combine_rubric(
    applicable: Applicability,
    dims: Mapping[str, DimScore | Unreadable],
    hard_fails: Mapping[str, bool],
    telegraph_avoidance: float | None = None,
) -> RubricResult:
    """The per-dim readings and the deterministic hard-rule flags (`<dim>` -> failed)
    through `rules.polarity.combine_dim_scores_with_polarity` under an APPLICABILITY row.

    `telegraph_avoidance` is the deterministic check's 1.0 (passed) or 0.0: at 8fd0dd9b
    it is a hard-rule dim without a polarity, so the combiner counts it as a `+` dim
    (it adds its 0 / 1 and 3 to the maximum), and its hard-fail flag costs nothing."""
    scores: dict[str, object] = {}
    unreadable: list[str] = []
    for dim in judged_dims(applicable):
        reading = dims.get(dim, Unreadable("no_json"))
        if isinstance(reading, DimScore):
            scores[f"{dim}_score"] = reading.value
        else:
            unreadable.append(dim)
    for dim, failed in hard_fails.items():
        scores[f"{dim}_hard_fail"] = 1 if failed else 0
    if telegraph_avoidance is not None:
        scores["telegraph_avoidance_score"] = telegraph_avoidance
    authors = combine_dim_scores_with_polarity(scores, applicable)
    return RubricResult(None if unreadable else authors, authors, tuple(unreadable))


TELEGRAPH_PHRASE: Final = re.compile(
    r"(as a fan of|"
    r"since you (love|like|enjoy|prefer|are into|don'?t (like|love|enjoy)|are|aren'?t)|"
    r"i know you('?re| are) (into|a fan of)|"
    r"i know you (love|like|enjoy)|"
    r"i remember (you|your|when you)|"
    r"i recall (you|your|when you)|"
    r"given your (interest|love|passion) (in|for)|"
    r"knowing how much you|"
    r"knowing your (taste|preference|interest|love)|"
    r"based on your (taste|preference|interest|love|history)|"
    r"as someone who (loves|likes|enjoys|is into|is a fan of)|"
    r"you'?ll appreciate this because)",
    re.IGNORECASE,
)
"""The phrases that telegraph a profile of the user (`_TELEGRAPH_PHRASE_RE`, the
192,699-character llm_postprocess.py)."""
RESPONSE_KEYS: Final = ("response",)
"""The reply field the other rubric types judge."""


def telegraph_check(response: str) -> tuple[bool, str]:
    """`_validate_no_creepy_phrasing` with no held-out preference: fails on a
    `TELEGRAPH_PHRASE`; (passed, the reason it failed)."""
    match = TELEGRAPH_PHRASE.search(response.strip())
    return (False, f"telegraph_phrase_match: {match.group(0)!r}") if match else (True, "")


def _items(value: object) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def source_a(
    fields: Mapping[str, Any],
    shown: Mapping[str, Any],
    scenario: bool,
    version: JudgeChoice = "per_dimension",
) -> dict[str, Any]:
    """A rubric's ground truth: the one the sample carries from the persona's backend
    (`judges.source_a`, the agentic types: `version`'s judge's), else from the
    instance: `build_source_a`'s keys it can fill, and for the context-shift `scenario`
    what the authors' rejudge script adds."""
    built = fields.get(SOURCE_A_KEY)
    if isinstance(built, Mapping):
        return dict(built[version])
    slice_ = fields.get("gt_slice")
    avoid = slice_.get("avoid") if isinstance(slice_, dict) else None
    truth: dict[str, Any] = {
        "user_top_preferences": _items(fields.get("top_k_relevant_prefs")),
        "user_negatives_nearby": _items(avoid),
        "privacy_flagged_prefs": _items(fields.get("privacy_flagged_prefs")),
    }
    if scenario:
        scenario_text = f"{fields.get('name', '')}: {fields.get('notes', '')}"
        query = shown.get("query") or query_text(shown)
        truth["query_text"] = f"{query}\n\n[Scenario — {scenario_text}]"
        forbidden = [it for it in _items(fields.get("forbidden_items")) if it.get("persona_item")]
        if forbidden:
            truth["scenario_off_limits_preferences"] = [
                {"persona_item": it.get("persona_item", ""), "category": it.get("category", "")}
                for it in forbidden
            ]
        carve_out = fields.get("carve_out")
        if isinstance(carve_out, dict) and carve_out:
            truth["user_opted_out_topic"] = carve_out.get("topic", "")
    return truth


def query_text(shown: Mapping[str, Any]) -> str:
    """The row's query as the model was shown it: its `user_query`, else its `query`
    (scripts/rejudge_existing.py `_build_gt`, 7,374 characters, commit not shown; a
    context-shift scenario's is its `query` first, `source_a`)."""
    return str(shown.get("user_query") or shown.get("query") or "")


def _pr_metrics(combined: Combined) -> dict[str, object]:
    return {
        "pr_positive_score": combined.positive_score,
        "pr_negative_penalty": combined.negative_penalty,
        "pr_combined_personalization_score": combined.combined,
        "pr_combined_max_possible": combined.max_possible,
    }


_SCALE_TOP, _SCALE_LOW = DIM_SCALE_MAX, 0.0
DIM_JUDGEMENT: Final = JudgePrompt(
    DIM_PROMPT_TEMPLATE,
    "agent_output",
    {"score": _SCALE_TOP, **dict.fromkeys(VOICE_SUB_SCORES, _SCALE_TOP)},
    {"score": _SCALE_LOW, **dict.fromkeys(VOICE_SUB_SCORES, _SCALE_LOW)},
)
"""The offline judgement of a dim prompt (the voice sub-scores are read for
`voice_match` alone; every judged dim's 3 is its best, a `-` dim's included:
`combine_dim_scores_with_polarity`)."""


@dataclass(frozen=True)
class Rubric(Judge):
    """The rubric of one task type: its `APPLICABILITY` row (empty where the authors'
    table has none), the reply fields it judges (`text_keys`: the first non-empty; the
    whole reply without), and whether the ground truth adds the context-shift
    `scenario` (module docstring)."""

    applicable: Applicability = field(default_factory=dict)
    text_keys: tuple[str, ...] = RESPONSE_KEYS
    scenario: bool = False
    kind: str = "rubric"
    why: str = "per-dim rubric, headline pr_combined"

    @property
    def judgement(self) -> JudgePrompt:
        return DIM_JUDGEMENT

    def text(self, reply: str) -> str:
        return first_text(reply, self.text_keys)

    def ground_truth(self, fields: Mapping[str, Any], shown: Mapping[str, Any]) -> dict[str, Any]:
        """The rubric's ground truth from the instance (`source_a`)."""
        return source_a(fields, shown, self.scenario)

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        truth = self.ground_truth(row.fields, row.shown)
        applicable = self.applicable
        hard_fails = {
            dim: bool(privacy_leak(row.text, items).hard_fail)
            for dim, items in (
                ("avoid_leak", truth["user_negatives_nearby"]),
                ("privacy_leak", truth["privacy_flagged_prefs"]),
            )
            if applicable.get(dim)
        }
        if applicable.get("stale_preference_use"):
            hard_fails["stale_preference_use"] = False
        dims = judged_dims(applicable)
        prompts = [dim_prompt(dim, truth, row.text) for dim in dims]
        answers = await collect(*(ask(prompt) for prompt in prompts))
        readings: dict[str, DimScore | Unreadable] = {
            dim: read_dim(dim, answer) for dim, answer in zip(dims, answers, strict=True)
        }
        metrics: dict[str, object] = {
            **{f"{d}_score": r.value for d, r in readings.items() if isinstance(r, DimScore)},
            **{f"{d}_hard_fail": int(failed) for d, failed in hard_fails.items()},
        }
        telegraph = None
        if applicable.get("telegraph_avoidance"):
            passed, why = telegraph_check(row.text)
            telegraph = 1.0 if passed else 0.0
            metrics |= {"telegraph_avoidance_score": telegraph, "telegraph_avoidance_reason": why}
        result = combine_rubric(applicable, readings, hard_fails, telegraph)
        calls = tuple(Call(p, a) for p, a in zip(prompts, answers, strict=True))
        authors_accuracy = row.headline.accuracy(_pr_metrics(result.authors))
        if result.combined is None:
            note = f"unreadable dims: {', '.join(result.unreadable)}"
            return JudgedRow(
                "judge_unreadable", metrics, None, row.text, calls, note, authors_accuracy
            )
        metrics |= _pr_metrics(result.combined)
        accuracy = row.headline.accuracy(metrics)
        note = "" if accuracy is not None else "no rubric dim applies (no APPLICABILITY row)"
        status: Status = "judged" if accuracy is not None else "no_faithful_judge"
        return JudgedRow(status, metrics, accuracy, row.text, calls, note)
