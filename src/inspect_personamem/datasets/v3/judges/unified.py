"""The unified 0-10 rubric judge, the published rows' (rubric v3, `unified_texts`): ONE
judge call per row that scores the task's positive dim (its target) and its penalty
checks 0-10 and marks each hard rule `{dim}_violated`, combined as the authors'
`score` combines them (personalization_rubric.py rubric v3;
scripts/recompute_pr_headline.py@5543351f):

    main  = 0.8 x primary + 0.2 x mean(secondaries)   (the primary alone without any;
            the mean of the positives read where the primary is missing)
    final = max(0, main - sum(5 x (10 - check) / 10))
    score = 0 where any hard rule is violated, else round(final, 2); at most 10

stored as the authors' runners store it (`pr_` before every key):
`pr_combined_personalization_score` over `pr_combined_max_possible` 10 (the `pr_combined`
headline) and `pr_preference_alignment_score` (the `pr_preference_alignment_score`
headline of `chatbot_personalized_response`, `pref_align_gated`: the primary alone,
0 on a violated hard rule, patch_headline_rows.py@32a47dd3).

The judge's reply is read as `score` reads it: its JSON object (`extract_json`); a
dim's number, or an object's `score` (with `voice_match`'s sub-scores kept), clamped
to 0-10 (a bool counts 1 / 0, as the authors' `isinstance(v, (int, float))`; a NaN or
an infinity is no number); a missing check deducts nothing. Where ours differs: a
`{dim}_violated` given as text is read by its words (`as_flag`: "false" is False),
where the authors' `bool("false")` is True; a reply with no object, or none of the
positive dims, is unscored (`judge_unreadable`), where the authors write 0 (what they
would write is kept as `authors_accuracy`).

The ground truth is `rubric.source_a`'s with the row's query as `query_text` first, as
the authors' Source A begins and as their re-judging script rebuilds it for this judge
(scripts/rejudge_existing.py `_build_gt`: the `user_query`, the context-shift scenario
added to it). An agentic row's is rebuilt from the persona at the row's time, its query
line the runner's (`judges.source_a`, agentic_tasks.py@8e2a111f); any other row's is read
from the instance, which holds no contradictions, style references or friends (theirs
rebuilt from the backend): those are absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Call,
    Judge,
    JudgedRow,
    JudgePrompt,
    Judging,
)
from inspect_personamem.datasets.v3.judges.preface import dumps, sha256, table
from inspect_personamem.datasets.v3.judges.rubric import (
    RESPONSE_KEYS,
    VOICE_SUB_SCORES,
    query_text,
    source_a,
)
from inspect_personamem.datasets.v3.judges.unified_texts import (
    APPLICABILITY_V3,
    AUTHORS_SOURCE,
    COMBINATION_SOURCE,
    DEFAULT_QUESTION,
    DIM_ALIAS,
    HARD_LINE,
    HARD_RULE_DIMS,
    HARD_RULES_ONLY,
    NO_HARD_RULES,
    NO_POSITIVES,
    PENALTY_CHECKS,
    PENALTY_LINE,
    PENALTY_SECTION,
    PENALTY_WEIGHT,
    POSITIVE_DIMS,
    POSITIVE_LINE,
    PRIMARY_ALONE,
    PRIMARY_OVERRIDE,
    PRIMARY_TAG,
    PRIMARY_WEIGHTED,
    QUERY_SECTION,
    SCHEMA_SCORE,
    SCHEMA_VIOLATED,
    SECONDARY_TAG,
    SOURCE,
    UNIFIED_DIM_QUESTIONS,
    UNIFIED_PREFACE,
    UNIFIED_PROMPT_TEMPLATE,
    UNIFIED_TEXTS,
)
from inspect_personamem.datasets.v3.reading.reply import (
    Unreadable,
    as_flag,
    finite,
    first_text,
    reply_object,
)

SCALE_MAX: Final = 10.0
PRIMARY_WEIGHT: Final = 0.8
SECONDARY_WEIGHT: Final = 0.2


@dataclass(frozen=True)
class Dims:
    """A task's dims under rubric v3: its positives (in the table's order), the one of
    them that carries 80% (`primary`, None without positives), its penalty checks and
    its hard rules."""

    positives: tuple[str, ...]
    primary: str | None
    penalties: tuple[str, ...]
    hard: tuple[str, ...]


def dims_of(task_type: str) -> Dims:
    """`score`'s dims of a task (rubric v3); a ValueError for a task with no row."""
    if task_type not in APPLICABILITY_V3:
        raise ValueError(f"{task_type!r} has no row in the unified rubric's APPLICABILITY")
    on = [dim for dim, applies in APPLICABILITY_V3[task_type].items() if applies]
    positives = tuple(dim for dim in on if dim in POSITIVE_DIMS)
    override = PRIMARY_OVERRIDE.get(task_type)
    primary = override if override in positives else (positives[0] if positives else None)
    hard = tuple(dim for dim in on if dim in HARD_RULE_DIMS)
    return Dims(positives, primary, PENALTY_CHECKS.get(task_type, ()), hard)


def question(dim: str) -> str:
    """A dim's question (through the alias; `DEFAULT_QUESTION` for none)."""
    found = UNIFIED_DIM_QUESTIONS.get(dim) or UNIFIED_DIM_QUESTIONS.get(DIM_ALIAS.get(dim, ""))
    return found or DEFAULT_QUESTION


def unified_prompt(
    task_type: str, ground_truth: Mapping[str, Any], agent_output: str, dims: Dims
) -> str:
    """`judge_unified_rubric_prompt(task_id, ground_truth, agent_output, pos_dims,
    hard_dims, penalty_dims=...)` (`unified_texts` says whose each text is): the query
    section shows the evidence's `query_text` where it has one."""
    positive_lines = [
        POSITIVE_LINE.format(
            dim=dim,
            tag=PRIMARY_TAG if dim == dims.primary else SECONDARY_TAG,
            question=question(dim),
        )
        for dim in dims.positives
    ]
    penalty_block = "\n".join(
        PENALTY_LINE.format(dim=dim, question=question(dim)) for dim in dims.penalties
    )
    hard_lines = [HARD_LINE.format(dim=dim, question=question(dim)) for dim in dims.hard]
    if dims.primary and len(dims.positives) > 1:
        primary_line = PRIMARY_WEIGHTED.format(primary=dims.primary)
    elif dims.primary:
        primary_line = PRIMARY_ALONE.format(primary=dims.primary)
    else:
        primary_line = HARD_RULES_ONLY
    schema = [SCHEMA_SCORE.format(dim=dim) for dim in (*dims.positives, *dims.penalties)]
    schema += [SCHEMA_VIOLATED.format(dim=dim) for dim in dims.hard]
    query = ground_truth.get("query_text") or ""
    return UNIFIED_PROMPT_TEMPLATE.format(
        preface=UNIFIED_PREFACE,
        task_type=task_type,
        query_section=QUERY_SECTION.format(query_text=query) if query else "",
        ground_truth=dumps(ground_truth),
        agent_output=agent_output,
        primary_line=primary_line,
        positive_block="\n".join(positive_lines) or NO_POSITIVES,
        penalty_section=PENALTY_SECTION.format(penalty_block=penalty_block)
        if penalty_block
        else "",
        hard_block="\n".join(hard_lines) or NO_HARD_RULES,
        schema_block=",\n".join(schema),
    )


@dataclass(frozen=True)
class UnifiedReading:
    """A unified judgement as read: each positive and check dim's 0-10 (those given),
    `voice_match`'s sub-scores, each hard rule's flag, and the reasoning."""

    scores: Mapping[str, float] = field(default_factory=dict)
    sub_scores: Mapping[str, float] = field(default_factory=dict)
    violated: Mapping[str, bool] = field(default_factory=dict)
    reasoning: str = ""


def _score(value: object) -> float | None:
    number = finite(value.get("score") if isinstance(value, Mapping) else value)
    return None if number is None else max(0.0, min(SCALE_MAX, number))


def read_unified(reply: str | None, dims: Dims) -> UnifiedReading | Unreadable:
    """The judge's reply read as `score` reads it (module docstring)."""
    parsed = reply_object(reply)
    if isinstance(parsed, Unreadable):
        return parsed
    scores: dict[str, float] = {}
    subs: dict[str, float] = {}
    for dim in (*dims.positives, *dims.penalties):
        value = parsed.get(dim)
        if isinstance(value, Mapping) and dim in dims.positives:
            for sub in VOICE_SUB_SCORES:
                number = finite(value.get(sub))
                if number is not None:
                    subs[f"{dim}_{sub}"] = number
        score = _score(value)
        if score is not None:
            scores[dim] = score
    violated = {dim: as_flag(parsed.get(f"{dim}_violated")) is True for dim in dims.hard}
    return UnifiedReading(scores, subs, violated, str(parsed.get("reasoning") or ""))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def combine_unified(dims: Dims, reading: UnifiedReading) -> dict[str, object]:
    """The row's metrics (module docstring), every key with the runners' `pr_`."""
    positives = {dim: reading.scores[dim] for dim in dims.positives if dim in reading.scores}
    primary = positives.get(dims.primary) if dims.primary else None
    secondaries = [score for dim, score in positives.items() if dim != dims.primary]
    if primary is None:
        main = _mean(list(positives.values()))
    elif secondaries:
        main = PRIMARY_WEIGHT * primary + SECONDARY_WEIGHT * _mean(secondaries)
    else:
        main = primary
    penalty = sum(
        PENALTY_WEIGHT * (SCALE_MAX - reading.scores[dim]) / SCALE_MAX
        for dim in dims.penalties
        if dim in reading.scores
    )
    violated = [dim for dim in dims.hard if reading.violated.get(dim)]
    score = 0.0 if violated else round(max(0.0, main - penalty), 2)
    metrics: dict[str, object] = {f"pr_{dim}_score": value for dim, value in reading.scores.items()}
    metrics |= {f"pr_{key}": value for key, value in reading.sub_scores.items()}
    for dim in dims.hard:
        flag = int(dim in violated)
        metrics |= {f"pr_{dim}_violated": flag, f"pr_{dim}_hard_fail": flag}
    return metrics | {
        "pr_judge_reasoning": reading.reasoning,
        "pr_positive_dim_mean": round(_mean(list(positives.values())), 2),
        "pr_penalty_points": round(penalty, 2),
        "pr_primary_dim": dims.primary,
        "pr_primary_dim_score": primary,
        "pr_personalization_hard_fail_count": len(violated),
        "pr_query_score_0_10": score,
        "pr_combined_personalization_score": score,
        "pr_combined_max_possible": SCALE_MAX,
    }


_EVERY_SCORED: Final = sorted(
    {
        dim
        for task in APPLICABILITY_V3
        for dim in (*dims_of(task).positives, *dims_of(task).penalties)
    }
)
_EVERY_HARD: Final = sorted(HARD_RULE_DIMS)
UNIFIED_JUDGEMENT: Final = JudgePrompt(
    UNIFIED_PROMPT_TEMPLATE,
    "agent_output",
    {**dict.fromkeys(_EVERY_SCORED, 10), **{f"{d}_violated": False for d in _EVERY_HARD}},
    {**dict.fromkeys(_EVERY_SCORED, 0), **{f"{d}_violated": True for d in _EVERY_HARD}},
)
"""The offline judgement of a unified prompt: every dim any task scores at 10 and no rule
violated (the top), or every dim at 0 and every rule violated (the lowest); a task's
reader reads its own dims of these."""
TEXTS_SHA256: Final = sha256(table(UNIFIED_TEXTS))
"""One digest of every fixed text of the unified prompt (the score's provenance)."""


@dataclass(frozen=True)
class Unified(Judge):
    """The unified judge of one task type (`task`, a row of `APPLICABILITY_V3`): the
    reply fields it judges (`text_keys`: the first non-empty; the whole reply without)
    and whether the ground truth adds the context-shift `scenario` (`rubric.source_a`)."""

    task: str
    text_keys: tuple[str, ...] = RESPONSE_KEYS
    scenario: bool = False
    kind: str = "unified"
    why: str = "unified 0-10 rubric judge (rubric v3), one call a row"

    def __post_init__(self) -> None:
        dims_of(self.task)  # a task with no row is refused where it is declared

    @property
    def dims(self) -> Dims:
        return dims_of(self.task)

    @property
    def judgement(self) -> JudgePrompt:
        return UNIFIED_JUDGEMENT

    @property
    def provenance(self) -> Mapping[str, str]:
        return {
            "prompt_source": f"{AUTHORS_SOURCE}; rubric v3's texts: {SOURCE}",
            "combination_source": COMBINATION_SOURCE,
            "prompt_texts_sha256": TEXTS_SHA256,
        }

    def text(self, reply: str) -> str:
        return first_text(reply, self.text_keys)

    def ground_truth(self, fields: Mapping[str, Any], shown: Mapping[str, Any]) -> dict[str, Any]:
        """The row's evidence: its query as `query_text`, then `rubric.source_a`'s (whose
        own `query_text`, the agentic runner's line, replaces it)."""
        return {
            "query_text": query_text(shown),
            **source_a(fields, shown, self.scenario, "unified"),
        }

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        dims = self.dims
        prompt = unified_prompt(self.task, self.ground_truth(row.fields, row.shown), row.text, dims)
        answer = await ask(prompt)
        calls = (Call(prompt, answer),)
        read = read_unified(answer, dims)
        if isinstance(read, Unreadable):
            authors = row.headline.accuracy(combine_unified(dims, UnifiedReading()))
            return JudgedRow("judge_unreadable", {}, None, row.text, calls, read.reason, authors)
        metrics = combine_unified(dims, read)
        if not any(dim in read.scores for dim in dims.positives):
            note = f"no positive dim scored ({', '.join(dims.positives)})"
            authors = row.headline.accuracy(metrics)
            return JudgedRow("judge_unreadable", metrics, None, row.text, calls, note, authors)
        return JudgedRow("judged", metrics, row.headline.accuracy(metrics), row.text, calls)
