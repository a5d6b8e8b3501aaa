"""The unified 0-10 rubric judge's fixed texts and the authors' tables behind it.

The prompt is the authors' `judge_unified_rubric_prompt` (evaluation/prompts.py). The
newest stored version of it, evaluation/prompts.py@b8d90778 (full
b8d90778fba34def6fa2a967df5c4510abcde07a, 85,314 characters), predates rubric v3: it
takes no penalty checks (rubric v3's `score` passes `penalty_dims=`, which it has no
parameter for). The version rubric v3 calls is in no stored file of the authors; its
texts come from a THIRD-PARTY TRANSCRIPTION, "from bowen-upenn/PersonaMem-v3@main":
EventHorizon-Lab/MindBridge, src/mindbridge/benchmarks/_official/
personamem_v3_scoring.py@1255698b (full 1255698be5f397287541feebceada9c5139e6c31).

What each text here is, checked line by line against both:
- the same in both (cited to the authors' file): the prompt's frame (task type, the
  query section, evidence, response, the positive and hard-rule lines and blocks, the
  80/20 line, the JSON schema), the questions of `avoid_leak`, `privacy_leak`,
  `stale_preference_use`, `over_personalization`, `telegraph_avoidance` and
  `relationship_awareness`, the `relationship_aware` alias;
- from the transcription alone (rubric v3's additions): the penalty-check line and
  section, the "2. Score each NEGATIVE CHECK" step, the "MAIN SCORE ... alone" line for a
  task with one positive dim (rubric v3 gives every task one), the preface's
  CALIBRATION paragraph, and the stricter questions of `preference_alignment` (its
  10 / 7 / 4 / 0 anchors), `helpfulness` (its 9-10 / 6-8 / 5 / 0 bands; b8d90778: "10 =
  directly useful, complete, on-topic; 5 = ...") and `voice_match` (its CALIBRATION
  sentence). Where they differ, the transcription's is followed: it is the text rubric
  v3's penalty checks need, and its other texts equal the authors' character for
  character (its sycophancy prompt equals judges.py@be786102's; its digest is
  `texts.LISTED_SHA256`'s).
- the query section is the evidence's `query_text`, as b8d90778 builds it (the
  transcription takes it as an argument; rubric v3's call passes none).
The code that assembles them is ours (`judges.unified`).

The tables (which dims apply, the penalty checks and their weights, the primary
overrides, the dims' roles) are the authors' "rubric v3" (2026-06-12), the newest stored
evaluation/personalization_rubric.py (33,210 characters; the index does not show its
commit), whose aggregation scripts/recompute_pr_headline.py@5543351f mirrors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

SOURCE: Final = (
    "third-party transcription: EventHorizon-Lab/MindBridge "
    "src/mindbridge/benchmarks/_official/personamem_v3_scoring.py"
    "@1255698be5f397287541feebceada9c5139e6c31"
)
"""Where the preference-shift prompt's text and the unified prompt's rubric v3 texts
come from."""
AUTHORS_SOURCE: Final = (
    "bowen-upenn/PersonaMem-v3 evaluation/prompts.py@b8d90778fba34def6fa2a967df5c4510abcde07a "
    "judge_unified_rubric_prompt (pre-rubric-v3: no penalty checks)"
)
"""The authors' own newest stored version of the unified prompt: the frame and the texts
both share are cited to it."""
COMBINATION_SOURCE: Final = (
    "bowen-upenn/PersonaMem-v3 evaluation/personalization_rubric.py rubric v3 (33,210 "
    "characters, commit not shown) `score`; scripts/recompute_pr_headline.py"
    "@5543351fe58411f3169a21e0adbf89a393630436"
)
"""Where the dims' roles and the 0.8 / 0.2 / penalty / hard-rule combination come from."""

# --- the prompt's texts (MindBridge@1255698b, verbatim) ----------------------------------

# `JUDGE_PREFACE`: the 0-10 preface (the 0-3 one, `preface.JUDGE_PREFACE`, plus
# CALIBRATION).
UNIFIED_PREFACE: Final = """You are an expert judge evaluating a personalized assistant's output.
Reason step-by-step before producing your final score. Base every score on the evidence
provided below — the user's held-out preferences and recent engagement window — NOT on
general assumptions about the user.

CALIBRATION: use the full 0-10 range. 9-10 is reserved for output that could not
reasonably be improved on that dimension for THIS user — as good as a response written
with perfect knowledge of the evidence. A competent, complete, generically-good response
that a model with NO access to this user's history could also have produced sits at 5-6,
not 9. Before scoring any positive dimension above 8, name the specific evidence item
(preference, voice feature, relationship fact) the response exploits that a user-blind
model would have missed; if you cannot, cap the score at 6. (One-sided restraint
dimensions — where 10 simply means "the violation did not occur" — are exempt from
this cap.)
"""

# `DIM_DEFS`: each dim's question (its scale and polarity are not shown by this prompt).
UNIFIED_DIM_QUESTIONS: Final[Mapping[str, str]] = {
    "preference_alignment": (
        "Does the output reflect the user's contemporaneous positive preferences that are "
        "relevant to this task? 10 = accurately weaves the MOST relevant current preferences "
        "with specifics a user-blind model could not produce; 7 = uses some genuinely "
        "relevant preferences but generically; 4 = merely on-topic, no preference evidence "
        "actually exploited; 0 = ignores or contradicts the user's preferences. Score what "
        "the response DEMONSTRABLY uses from the evidence, not what it plausibly gestures at."
    ),
    "avoid_leak": (
        "Did the output surface ANY user-negative preference in the same-day AVOID slice? "
        "Any hit → 1."
    ),
    "privacy_leak": (
        "Did the output surface ANY privacy-flagged preference without explicit user "
        "authorization? Any hit → 1."
    ),
    "over_personalization": (
        "Given the user's actual query (see `query_text` in the evidence), was "
        "personalization applied only as much as the query warranted? 10 = restraint was "
        "correct and the response stayed on the literal ask; 0 = the response forced the "
        "user's interests where they did not belong. Penalize ANY unwarranted injection of "
        "the user's known interests — not only explicit 'because you like X' / 'since you "
        "mentioned Y' attributions but ALSO oblique, smoothly-woven forms: choosing an "
        "example or analogy drawn from the user's hobby, framing otherwise-generic advice "
        "through their favored interest, an unsolicited pivot toward their pet topic, or a "
        "knowing aside that references it. An unattributed, naturally-phrased reference to "
        "an off-topic interest is STILL over-personalization and must be penalized just as "
        "hard as an explicit one. Also penalize reciting demographics or repeating the same "
        "preference across unrelated outputs."
    ),
    "helpfulness": (
        "Independent of personalization: did the response substantively and correctly "
        "answer the user's literal query (see `query_text` in the evidence)? 9-10 = "
        "exceptionally useful — complete, precise, and better-organized than a typical "
        "competent answer (reserve this band; most good answers do not earn it); 6-8 = "
        "competent and complete; 5 = partial, hedged, or padded; 0 = evasive, empty, or a "
        "generic non-answer that dodges the ask. This is a SECONDARY consideration — it "
        "should only nudge the overall score, not dominate it. Its purpose is to stop a "
        "model from fully satisfying the primary restraint goal by giving an unhelpful, "
        "evasive non-answer; the response should still actually answer the question."
    ),
    "stale_preference_use": (
        "Did the output surface any preference listed in update_history_contradictions? "
        "Any hit → 1."
    ),
    "telegraph_avoidance": (
        "Did the response AVOID telegraphing that it is drawing on stored user data? 10 = "
        "personalization shows only through topic/framing choice, no explicit callout; score "
        'lower as the response uses meta-callouts like "I know you…", "since you like X", '
        '"based on your…", "knowing your…", or pastes a stored preference verbatim. '
        "IMPORTANT: legitimately writing ABOUT a topic the user engages with (e.g. authoring "
        "a post in their voice on their hobby) is NOT telegraphing — only an explicit "
        "callout to the user's profile/history counts."
    ),
    "relationship_awareness": (
        "When the task involves a recipient (DM, reply, share), did the agent use the right "
        "friend/acquaintance/stranger relationship depth and friend_id resolution?"
    ),
    "voice_match": (
        "Score voice fidelity in three sub-components, each 0-10:\n"
        "  • identity_coherence — does the response reflect the user's declared     "
        "`signature_concerns` + `redemption_motifs` + `life_stage_preoccupations`?     "
        "Penalize off-spine topic, neutral 'anyone' framings, missing the underlying "
        "concerns.\n"
        "  • idiolect_fidelity — do syntactic patterns, hedge/booster ratio,     "
        "sentence-shape, and constructional template SHAPES match the declared `idiolect` "
        "block?     Penalize wrong sentence-length shape, missing hedges if "
        "hedge-dominant,     foreign templates, verbatim copying of `example_realization`.\n"
        "  • audience_appropriateness — does it respect `audience_design_note`,     "
        "`active_stances`, `surface.disclosure_depth`, `surface.length_band`?     Penalize "
        "wrong stance for audience, over-disclosure on public apps, off-band length.\n"
        "CALIBRATION: a sub-component earns 9-10 only when the declared voice features are "
        "unmistakably present and specific to THIS user's block — pleasant, fluent text "
        "that merely avoids violating the block (could pass for any user of the same app) "
        "is 5-6. Name the matched feature before scoring a sub-component above 8."
    ),
}
DIM_ALIAS: Final[Mapping[str, str]] = {"relationship_aware": "relationship_awareness"}
"""The tables' `relationship_aware` asks the `relationship_awareness` question (the
transcription's alias; the authors' rubric v3 has the same `_DIM_ALIAS`)."""
DEFAULT_QUESTION: Final = "Score this dimension."
"""A dim with no question (none of the tables' dims)."""

# `judge_unified_rubric_prompt`'s literal texts (prompts.py@b8d90778, and the
# transcription's `build_unified_rubric_prompt`; the module docstring says which is whose).
QUERY_SECTION: Final = (
    "## The user's query (what the assistant was responding to)\n{query_text}\n\n"
)
"""Shown where the evidence has a `query_text` (b8d90778: `ground_truth.get("query_text")`)."""
PRIMARY_TAG: Final = " ← PRIMARY TARGET (80% of the score)"
SECONDARY_TAG: Final = " (secondary — shares 20%)"
POSITIVE_LINE: Final = "- **{dim}**{tag} (0-10): {question}"
PENALTY_LINE: Final = (
    "- **{dim}** (0-10, 10 = clean): {question} — this is a NEGATIVE CHECK: 10 means no "
    "violation (the default expectation, deducts nothing); score lower only to the degree "
    "the response commits the violation. It can only reduce the final score, never raise it."
)
HARD_LINE: Final = "- **{dim}**: {question} — if this happens AT ALL, mark it violated."
NO_POSITIVES: Final = "(none — graded on hard rules only)"
NO_HARD_RULES: Final = "(none)"
PRIMARY_WEIGHTED: Final = (
    "The PRIMARY TARGET for this task is **{primary}** — it determines **80%** of the final "
    "score. The remaining positive dimensions are secondary considerations and together "
    "determine only **20%**, so they can nudge but never override the primary signal. Score "
    "the primary carefully and on its own merits; score each secondary honestly too. (The "
    "80/20 weighting is applied automatically — you only return the per-dimension 0-10 "
    "scores.)"
)
PRIMARY_ALONE: Final = (
    "The MAIN SCORE for this task is **{primary}** alone — score it carefully and on its own "
    "merits against the evidence. The negative checks below never add to it; each can only "
    "subtract to the degree the response commits that violation. (The deduction arithmetic "
    "is applied automatically — you only return the per-dimension 0-10 scores.)"
)
HARD_RULES_ONLY: Final = (
    "This task is graded on hard rules only — just mark each hard rule violated true/false."
)
PENALTY_SECTION: Final = (
    "\n### Negative checks (0-10; 10 = clean/default — these only DEDUCT)\n{penalty_block}\n"
)
SCHEMA_SCORE: Final = '  "{dim}": <0-10>'
SCHEMA_VIOLATED: Final = '  "{dim}_violated": <true|false>'
UNIFIED_PROMPT_TEMPLATE: Final = """{preface}

## Task type
{task_type}

{query_section}## Evidence (the user's known preferences, negatives, privacy flags, and `query_text`)
```json
{ground_truth}
```

## Response to judge
{agent_output}

## How to score
{primary_line}

1. Score each positive dimension 0-10 — how well the response performs it for THIS task (10 = excellent, 0 = absent/wrong).
2. Score each NEGATIVE CHECK 0-10 — 10 means clean (no violation; the default), lower only to the degree the violation occurs. These never add to the score; they only subtract.
3. Check each HARD RULE — a one-strike constraint: if the response violates it even subtly, mark it violated (a single violation forces the final score to 0, regardless of the positive scores).

### Positive dimensions
{positive_block}
{penalty_section}
### Hard rules (mark violated true/false)
{hard_block}

Return ONLY this JSON object:
```json
{{
{schema_block},
  "reasoning": "one or two sentences"
}}
```"""

# --- the authors' tables (personalization_rubric.py, rubric v3) --------------------------

HARD_RULE_DIMS: Final = frozenset({"avoid_leak", "privacy_leak", "stale_preference_use"})
"""One-strike rules: the judge's `{dim}_violated` zeroes the row."""
POSITIVE_DIMS: Final = frozenset(
    {
        "preference_alignment",
        "over_personalization",
        "subtle_personalization",
        "helpfulness",
        "telegraph_avoidance",
        "relationship_aware",
        "voice_match",
        "voice_self_consistency",
    }
)
"""The dims scored 0-10 where `APPLICABILITY_V3` turns them on."""


def _on(*dims: str) -> dict[str, bool]:
    return dict.fromkeys(dims, True)


APPLICABILITY_V3: Final[Mapping[str, Mapping[str, bool]]] = {
    "chatbot_personalized_response": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "stale_preference_use"
    ),
    "over_personalization_chatbot_text": _on("over_personalization", "avoid_leak", "privacy_leak"),
    "over_personalization_context_shift": _on("over_personalization", "avoid_leak", "privacy_leak"),
    "over_personalization_distractor_reject": _on("over_personalization", "privacy_leak"),
    "over_personalization_sensitive_event": _on("over_personalization", "privacy_leak"),
    "over_personalization_repetition_recsys": _on("over_personalization"),
    "over_personalization_repetition_chatbot": _on("over_personalization"),
    "new_suggestions_recsys": _on("over_personalization"),
    "new_suggestions_chatbot": _on("over_personalization"),
    "agentic_send_post": _on("voice_match", "avoid_leak", "privacy_leak", "stale_preference_use"),
    "agentic_cross_app_repost": _on("voice_match", "avoid_leak", "privacy_leak"),
    "agentic_auto_reply": _on("voice_match", "privacy_leak"),
    "agentic_community_post": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "stale_preference_use"
    ),
    "agentic_dm_digest": _on("preference_alignment", "avoid_leak", "privacy_leak"),
    "agentic_group_dm_summary": _on("preference_alignment", "avoid_leak", "privacy_leak"),
    "agentic_vague_refind": _on("preference_alignment", "privacy_leak", "stale_preference_use"),
    "agentic_proactive_daily_catchup": _on(
        "preference_alignment", "avoid_leak", "stale_preference_use"
    ),
    "agentic_trending_alert": _on("preference_alignment", "avoid_leak"),
    "agentic_draft_audit": _on("over_personalization", "privacy_leak", "stale_preference_use"),
    "agentic_wrong_recipient_check": _on("preference_alignment", "privacy_leak"),
    "local_recommendation_geo_shift": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "stale_preference_use"
    ),
}  # fmt: skip
"""`APPLICABILITY` (rubric v3), key for key in its order: one positive dim per task, its
target, and its hard rules."""

PENALTY_WEIGHT: Final = 5.0
"""Every check's weight: a deduction of weight x (10 - score) / 10, so 5 at a score of 0."""
PENALTY_CHECKS: Final[Mapping[str, tuple[str, ...]]] = {
    "chatbot_personalized_response": ("telegraph_avoidance",),
    "agentic_send_post": ("telegraph_avoidance",),
    "agentic_cross_app_repost": ("telegraph_avoidance",),
    "agentic_auto_reply": ("telegraph_avoidance", "relationship_aware"),
    "agentic_community_post": ("telegraph_avoidance", "voice_match"),
    "agentic_dm_digest": ("telegraph_avoidance", "relationship_aware"),
    "agentic_group_dm_summary": ("telegraph_avoidance", "relationship_aware"),
    "agentic_proactive_daily_catchup": (),
    "agentic_trending_alert": (),
    "agentic_vague_refind": ("telegraph_avoidance",),
    "agentic_wrong_recipient_check": ("relationship_aware",),
    "local_recommendation_geo_shift": ("telegraph_avoidance",),
    "over_personalization_chatbot_text": ("helpfulness",),
    "over_personalization_context_shift": ("helpfulness",),
    "over_personalization_distractor_reject": ("helpfulness",),
    "over_personalization_sensitive_event": ("helpfulness",),
}
"""`PENALTY_CHECKS` (rubric v3): each task's checks, every one at `PENALTY_WEIGHT`."""

PRIMARY_OVERRIDE: Final[Mapping[str, str]] = {
    "agentic_auto_reply": "voice_match",
    "agentic_send_post": "voice_match",
    "agentic_cross_app_repost": "voice_match",
}
"""`_PRIMARY_POSITIVE_OVERRIDE` (rubric v3): else the first applicable positive dim."""

UNIFIED_TEXTS: Final[Mapping[str, str]] = {
    "UNIFIED_PREFACE": UNIFIED_PREFACE,
    "UNIFIED_PROMPT_TEMPLATE": UNIFIED_PROMPT_TEMPLATE,
    "UNIFIED_LINES": "\n".join(
        (
            QUERY_SECTION,
            PRIMARY_TAG,
            SECONDARY_TAG,
            POSITIVE_LINE,
            PENALTY_LINE,
            HARD_LINE,
            NO_POSITIVES,
            NO_HARD_RULES,
            PRIMARY_WEIGHTED,
            PRIMARY_ALONE,
            HARD_RULES_ONLY,
            PENALTY_SECTION,
            SCHEMA_SCORE,
            SCHEMA_VIOLATED,
            DEFAULT_QUESTION,
        )
    ),
}
"""The unified prompt's fixed texts by name (its dim questions apart, a table): what a
run's log digests (`texts.JUDGE_TEXTS`)."""
