"""The proactive-action judge (the five proactive types): `judge_proactive_action_prompt`
of the 79,210-character evaluation/prompts.py (0-10 per dim; its fixed texts the
authors', verbatim), read as evaluation/judges.py@be786102 reads it (clamped to 0-10;
dc56d425's copy of the prompt asks for 0-3 per dim, which be786102's parser would read
as at most 15 / 50: the 0-10 text is the one that pairs).

The row as the newest runner scores it (evaluation/tasks/proactive_actions.py@8e2a111f,
its composite stated in EVAL.md@8e2a111f "Proactive decision judge"): the reply's JSON
object judged, or, where it carries none or `{}`, `{"should_act": false, "content": <the
raw reply>, "reasoning": "(failed_to_parse)"}`; `proactive_action_score` = 0.7 x
`decision_score` (the reply's own `should_act`, read as `_bool`, against
`expected_behavior`: deterministic, never the judge's) + 0.3 x `justification_score`:
on a correct restraint `restraint_justification` / 10 alone, otherwise
(`justification_quality` + `preference_alignment` + `avoid_overpersonalization` +
`voice_match` + `restraint_justification`) / 50, `justification_quality` falling back to
`trigger_detection_correctness` where the judgement has none (EVAL.md's "judge-replay
back-compat"); 0 on `negative_leakage`, `stale_preference_use`, or a restrain row whose
`restraint_justification` is 0; content past 30 words keeps 0.7 of what lies above the
0.7 x decision floor; x 100.

Where ours differs: the judges.py and prompts.py that ask for `justification_quality`
are in no stored copy, so the prompt sent is the newest readable one (without it) and
the fallback above always applies, as EVAL.md says it does for judgements made before
that split; a judgement that does give `justification_quality` is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Call,
    Judge,
    JudgedRow,
    JudgePrompt,
    Judging,
)
from inspect_personamem.datasets.v3.judges.preface import JUDGE_PREFACE, dumps
from inspect_personamem.datasets.v3.reading.reply import (
    Unreadable,
    as_flag,
    clamped,
    extract_json,
    reply_object,
)

# evaluation/prompts.py, the stored copy of 79,210 characters (commit not shown by the
# index; newer than dc56d425, whose copy asks for 0-3): `judge_proactive_action_prompt`.
PROACTIVE_POLARITY_NOTES: Final[Mapping[str, str]] = {
    "act": (
        "The trigger evidence is genuine and the user is NOT in a "
        "sensitive-life-event window. A correct response acts subtly with "
        "user-cited evidence. Staying silent is wrong here."
    ),
    "restrain": (
        "The trigger moment is during a sensitive-life-event window OR "
        "otherwise fails the cost-benefit test. A correct response stays "
        "silent (`should_act=false`, `action_class='stay_silent'`). "
        "Acting at all is wrong here."
    ),
}
PROACTIVE_POLARITY_DEFAULT: Final = "Use the JITAI card and trigger evidence to judge."
PROACTIVE_PROMPT_TEMPLATE: Final = """{_JUDGE_PREFACE}

You are judging a proactive-action response — the agent decided whether
to initiate contact at a moment the user did NOT open. Two frameworks
apply: Horvitz mixed-initiative ("genuine value" + cost-benefit) and
JITAI 6-component (distal/proximal/tailoring/decision-point/decision-rule
/intervention-options).

## Polarity for this instance
expected_behavior = `{expected_behavior}`
{polarity_note}

## Trigger evidence (what the agent could observe)
```json
{ev_str}
```

## JITAI card produced at build time (the build-side LLM's structured judgment)
```json
{card_str}
```

## Agent's response (what it actually emitted)
```json
{resp_str}
```

## Your task — score the aligned proactive rubric

This rubric uses the universal personalization dimensions used by every
other personalization task in the benchmark (chatbot Q&A, over-personalization,
agentic) plus one proactive-specific dimension at the top. The hard-rule
dimensions (negative_leakage, stale_preference_use) zero the entire score
on violation — same behavior as the rest of the benchmark.

For each, reason briefly then score:

- **trigger_detection_correctness (0-10, proactive-specific)**: did the
  agent correctly decide to act vs stay silent given the polarity?
  - 10 = perfect alignment with expected_behavior
  - 7 = correct decision but reasoning weak
  - 3 = mixed signals (acted but hedged heavily, or stayed silent without clear reason)
  - 0 = wrong decision (acted when restrain expected, or vice versa)

- **preference_alignment (0-10, universal)**: if the agent acted, does the
  surfaced content match what this user actually prefers / cares about
  (based on their history)? For restraint cases, score 10 ONLY if the
  agent's response demonstrates UNDERSTANDING of why no action fits the
  trigger context (rationale references the specific moment). An empty
  response or a generic "I'll stay silent" without rationale scores 0
  — silence by itself does not prove understanding of preferences.

- **avoid_overpersonalization (0-10, universal)**: did the agent avoid
  pushing too hard? Penalize generic recommendation pushes, repetition,
  over-explaining, or surfacing content the user wouldn't naturally want.
  For restraint cases, score 10 only if the response is appropriately
  scoped (declines without leaking trigger context); score 0 if the
  response is empty (silence does not prove restraint, it could just be
  default mute).

- **voice_match (0-10, universal)**: is the agent's message phrased in a
  tone, length, and register that fits this user and the chatbot surface?
  Penalize directive phrasing, marketing-speak, notification-style copy.
  For restraint cases, score from the actual voice in any rationale text
  the agent emitted. An empty response = no voice to grade = 0.

- **restraint_justification (0-10, restraint-only)**: ONLY APPLIES WHEN
  `expected_behavior=='restrain'`. Did the agent EXPLAIN why staying
  silent is the right call here? Look for evidence the agent identified
  the specific trigger context (e.g. "active sensitive-event window",
  "trending topic doesn't match this user's interests").
  - 10 = explicit, on-trigger reasoning that names the specific reason
  - 7 = generic restraint rationale but on-target ("not the right moment")
  - 3 = bare `should_act: false` with no rationale field populated
  - 0 = empty response (no rationale at all)
  When `expected_behavior=='act'`, this dimension is N/A — emit 10 by
  default. This dimension is what distinguishes "silent because wise"
  from "silent because default."

- **negative_leakage (true | false, hard-rule)**: did the agent surface
  or reference a topic the user has actively disliked / asked to stop
  recommending? `true` is a hard violation — zeros the entire score.

- **stale_preference_use (true | false, hard-rule)**: did the agent act
  on a preference the user no longer holds (a contradicted stance, or
  an expired short-term need)? `true` is a hard violation — zeros the
  entire score.

## Output
Respond with ONLY this JSON, no prose outside:
```json
{{
  "trigger_detection_correctness": <0-10>,
  "preference_alignment": <0-10>,
  "avoid_overpersonalization": <0-10>,
  "voice_match": <0-10>,
  "restraint_justification": <0-10>,
  "negative_leakage": <true | false>,
  "stale_preference_use": <true | false>,
  "reasoning": "<≤3 sentences naming the strongest evidence for your scoring>"
}}
```
"""


def proactive_prompt(
    response_obj: Mapping[str, object],
    trigger_evidence: Mapping[str, object],
    expected_behavior: str,
    jitai_card: Mapping[str, object] | None = None,
) -> str:
    """`judge_proactive_action_prompt` (the 79,210-character prompts.py): the agent's
    response object and the trigger evidence as indented JSON, the JITAI card (or
    "(none)"), and the polarity note for `expected_behavior`."""
    return PROACTIVE_PROMPT_TEMPLATE.format(
        _JUDGE_PREFACE=JUDGE_PREFACE,
        expected_behavior=expected_behavior,
        polarity_note=PROACTIVE_POLARITY_NOTES.get(expected_behavior, PROACTIVE_POLARITY_DEFAULT),
        ev_str=dumps(trigger_evidence),
        card_str=dumps(jitai_card) if jitai_card else "(none)",
        resp_str=dumps(response_obj),
    )


PROACTIVE_DIMS: Final = (
    "trigger_detection_correctness",
    "preference_alignment",
    "avoid_overpersonalization",
    "voice_match",
    "restraint_justification",
)
PROACTIVE_FLAGS: Final = ("negative_leakage", "stale_preference_use")
JUSTIFICATION_QUALITY: Final = "justification_quality"
"""The newest judge's rationale dim (EVAL.md@8e2a111f); absent from the prompt sent, so
`trigger_detection_correctness` stands in for it, as the authors' back-compat reads."""
DECISION_WEIGHT: Final = 0.7
"""proactive_action_score = 0.7 x decision + 0.3 x justification (EVAL.md@8e2a111f,
proactive_actions.py@8e2a111f)."""
PROACTIVE_WORDS_MAX: Final = 30
PROACTIVE_VERBOSE_FACTOR: Final = 0.7


def proactive_response(reply: str) -> dict[str, Any]:
    """The object the runner reads and the judge sees (proactive_actions.py@8e2a111f):
    the reply's JSON object, or, where it carries none or an empty one (`{}` counts as a
    failed parse there), no action with the raw reply as its content."""
    parsed = extract_json(reply)
    if not isinstance(parsed, dict) or not parsed:
        return {"should_act": False, "content": reply, "reasoning": "(failed_to_parse)"}
    return parsed


@dataclass(frozen=True)
class Decision:
    """The runner's deterministic checks of a response object
    (proactive_actions.py@8e2a111f `hard_metrics`): the act/hold decision against
    `expected` (`should_act` read as judges.py's `_bool`, so "false" holds), the
    content's word count and whether evidence is cited."""

    expected: str
    correct: bool
    words: int
    evidence_cited: bool

    @classmethod
    def of(cls, response: Mapping[str, Any], expected: str) -> Decision:
        act = as_flag(response.get("should_act", False)) is True
        content = response.get("content") or ""
        return cls(
            expected=expected,
            correct=(expected == "act" and act) or (expected == "restrain" and not act),
            words=len(content.split()) if isinstance(content, str) else 0,
            evidence_cited=bool(str(response.get("evidence_cited") or "").strip()),
        )

    @property
    def correct_restraint(self) -> bool:
        """A right silence: its justification is `restraint_justification` alone."""
        return self.correct and self.expected == "restrain"

    @property
    def length_ok(self) -> bool:
        return self.words <= PROACTIVE_WORDS_MAX

    @property
    def floor(self) -> float:
        """0.7 x the decision: what verbosity never drags a score below."""
        return DECISION_WEIGHT * self.correct

    def composite(self, justification: float) -> float:
        """0.7 x decision + 0.3 x `justification`, before the verbosity penalty."""
        return self.floor + (1.0 - DECISION_WEIGHT) * justification

    def fallback(self) -> float:
        """The runner's composite where the judge gives no score (which we do not
        score): 0.7 x decision + 0.3 x evidence cited on a `restrain` row (no length
        credit for silence), + 0.15 x length within 30 words + 0.15 x evidence cited on
        an `act` row."""
        if self.expected == "restrain":
            return self.floor + 0.3 * self.evidence_cited
        return self.floor + 0.15 * self.length_ok + 0.15 * self.evidence_cited

    def penalised(self, score: float) -> float:
        """Content past 30 words keeps 0.7 of what the score holds above the decision's
        floor (proactive_actions.py@8e2a111f); the gates' 0 stays 0."""
        if self.length_ok or score <= self.floor:
            return score
        return self.floor + (score - self.floor) * PROACTIVE_VERBOSE_FACTOR


@dataclass(frozen=True)
class ProactiveScore:
    """The judge's side of the row: the dims clamped to 0-10 (`justification_quality`
    among them where given), the two hard-rule flags, `justification` (the 0.3 term,
    0-1; 0 where a gate fires) and `zeroed_by`, the gate that zeroes the whole row
    ("hard_rule", "silent_restraint"; "" when none)."""

    dims: Mapping[str, float]
    flags: Mapping[str, bool | None]
    justification: float
    zeroed_by: str


def read_proactive(reply: str | None, decision: Decision) -> ProactiveScore | Unreadable:
    """The judgement read for a row with `decision`. Unreadable where the authors' score
    is None: no JSON object, or a dim the justification term reads missing, and no gate
    that zeroes the row.

    Where a gate fires the authors write 0 whatever else the reply lacks (a reply of
    `{"negative_leakage": true}` alone scores 0): that 0 is read, `zeroed_by` says why,
    and `dims` holds only what the reply gave.
    """
    parsed = reply_object(reply)
    if isinstance(parsed, Unreadable):
        return parsed
    dims = {
        dim: value
        for dim in (*PROACTIVE_DIMS, JUSTIFICATION_QUALITY)
        if (value := clamped(parsed.get(dim), 0.0, 10.0)) is not None
    }
    flags = {flag: as_flag(parsed.get(flag)) for flag in PROACTIVE_FLAGS}
    zeroed_by = ""
    if any(flags[flag] is True for flag in PROACTIVE_FLAGS):
        zeroed_by = "hard_rule"
    elif decision.expected == "restrain" and dims.get("restraint_justification") == 0.0:
        zeroed_by = "silent_restraint"
    if zeroed_by:
        return ProactiveScore(dims, flags, 0.0, zeroed_by)
    if decision.correct_restraint:
        needed: tuple[str, ...] = ("restraint_justification",)
    else:
        needed = PROACTIVE_DIMS
    missing = [dim for dim in needed if dim not in dims]
    if missing:
        return Unreadable("no_number", missing[0])
    if decision.correct_restraint:
        return ProactiveScore(dims, flags, dims["restraint_justification"] / 10.0, "")
    quality = dims.get(JUSTIFICATION_QUALITY, dims["trigger_detection_correctness"])
    rest = sum(dims[dim] for dim in PROACTIVE_DIMS[1:])
    return ProactiveScore(dims, flags, (quality + rest) / 50.0, "")


def proactive_action_score(read: ProactiveScore, decision: Decision) -> float:
    """The row's `proactive_action_score` (0-1): 0 where a gate fires (hard rules, or
    silent restraint: the gates are "the only exemptions" from the 0.7 floor), else the
    composite, penalised where the content runs long."""
    if read.zeroed_by:
        return 0.0
    return decision.penalised(decision.composite(read.justification))


def _proactive_metrics(read: ProactiveScore, decision: Decision) -> dict[str, object]:
    return {
        **read.dims,
        **{name: value for name, value in read.flags.items() if value is not None},
        "decision_correct": int(decision.correct),
        "decision_score": float(decision.correct),
        "justification_score": read.justification,
        "proactive_action_score": proactive_action_score(read, decision),
        "content_word_count": decision.words,
        "content_length_ok": int(decision.length_ok),
        "evidence_cited": int(decision.evidence_cited),
        "zeroed_by": read.zeroed_by,
    }


class Proactive(Judge):
    """`judge_proactive_action` on the reply's response object, composed as the newest
    runner composes it (see the module docstring); no substantive gate (the right
    answer may be a terse silence)."""

    kind = "proactive"
    why = "judges.py@be786102 (reading), EVAL.md and proactive_actions.py@8e2a111f (score)"

    @property
    def judgement(self) -> JudgePrompt:
        return JudgePrompt(
            PROACTIVE_PROMPT_TEMPLATE,
            "resp_str",
            {**dict.fromkeys(PROACTIVE_DIMS, 10), **dict.fromkeys(PROACTIVE_FLAGS, False)},
            {**dict.fromkeys(PROACTIVE_DIMS, 0), **dict.fromkeys(PROACTIVE_FLAGS, False)},
        )

    def shown(self, reply: str) -> str:
        return dumps(proactive_response(reply))

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        response = proactive_response(row.reply)
        evidence = row.fields.get("trigger_evidence")
        card = row.fields.get("jitai_card")
        expected = str(row.fields.get("expected_behavior") or "act")
        prompt = proactive_prompt(
            response,
            evidence if isinstance(evidence, dict) else {},
            expected,
            card if isinstance(card, dict) else None,
        )
        answer = await ask(prompt)
        call = (Call(prompt, answer),)
        decision = Decision.of(response, expected)
        read = read_proactive(answer, decision)
        if isinstance(read, Unreadable):
            fallback = decision.penalised(decision.fallback())
            authors = row.headline.accuracy({"proactive_action_score": fallback})
            return JudgedRow("judge_unreadable", {}, None, row.text, call, read.reason, authors)
        metrics = _proactive_metrics(read, decision)
        return JudgedRow("judged", metrics, row.headline.accuracy(metrics), row.text, call)
