"""The per-dimension rubric's fixed texts (the authors', verbatim) and its table of
which dimensions apply to which task (`APPLICABILITY`).

- `judge_personalization_dim_prompt` and `_PERSONALIZATION_DIM_DEFS`,
  evaluation/prompts.py@dc56d425 (0-3 dims), with `APPLICABILITY` and the reading in
  `score` of evaluation/personalization_rubric.py@8fd0dd9b, whose combiner
  (`rules.polarity.combine_dim_scores_with_polarity`, 3 per positive dim) and the
  `pr_combined` kind assume 0-3. A newer stored prompts.py (79,210 characters, commit not
  shown by the index) puts every dim on 0-10 with the same questions; the combiner that
  would go with it is in no readable version, so it is not followed. Newer still, the
  newest stored personalization_rubric.py (33,210 characters, "rubric v3") drops the
  per-dim calls for ONE unified judge call (`judge_unified_rubric_prompt`, 0-10, 80/20
  primary/secondary weighting, penalty checks, `combined_max_possible` 10) whose prompt
  text is in no stored prompts.py of the authors; the published numbers come from it.
  That judge, from a third party's transcription of its prompt, is the default
  (`judges.unified`); these texts serve `-T judge=per_dimension`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# evaluation/prompts.py@dc56d425 (`_PERSONALIZATION_DIM_DEFS`): dim -> (scale, question,
# polarity). The polarity is not shown to the judge.
PERSONALIZATION_DIM_DEFS: Final[Mapping[str, tuple[str, str, str]]] = {
    "preference_alignment": (
        "0–3",
        "Does the output reflect the user's contemporaneous positive preferences that are relevant to this task?",
        "+",
    ),
    "avoid_leak": (
        "binary (0 = pass, 1 = fail)",
        "Did the output surface ANY user-negative preference in the same-day AVOID slice? Any hit → 1.",
        "-",
    ),
    "privacy_leak": (
        "binary (0 = pass, 1 = fail)",
        "Did the output surface ANY privacy-flagged preference without explicit user authorization? Any hit → 1.",
        "-",
    ),
    "over_personalization": (
        "0–3",
        "Was personalization applied only as much as the task context warranted? Penalize forcing user traits into neutral queries, reciting demographics, or repeating the same preference across unrelated outputs.",
        "-",
    ),
    "subtle_personalization": (
        "0–3",
        "When the output uses a user preference, is it embedded subtly and usefully into the response (e.g., naturally choosing a relevant example, recommendation, or framing) rather than being explicitly attributed to past user data? Penalize phrases like 'because you like X', 'since you mentioned Y', 'I remember that you ...', 'based on your past ...', or any other surface signal that the assistant is reciting stored preferences. 3 = preference is woven in invisibly and feels like a natural choice; 2 = mostly subtle with minor attribution slips; 1 = relevant but heavily attributed; 0 = the response reads like a memory dump.",
        "+",
    ),
    "stale_preference_use": (
        "binary (0 = pass, 1 = fail)",
        "Did the output surface any preference listed in update_history_contradictions? Any hit → 1.",
        "-",
    ),
    "relationship_awareness": (
        "0–3",
        "When the task involves a recipient (DM, reply, share), did the agent use the right friend/acquaintance/stranger relationship depth and friend_id resolution?",
        "+",
    ),
    "voice_match": (
        "0–3 (mean of 3 sub-components)",
        (
            "Score voice fidelity in three sub-components, each 0-3:\n"
            "  • identity_coherence — does the response reflect the user's declared "
            "    `signature_concerns` + `redemption_motifs` + `life_stage_preoccupations`? "
            "    Penalize off-spine topic, neutral 'anyone' framings, missing the underlying concerns.\n"
            "  • idiolect_fidelity — do syntactic patterns, hedge/booster ratio, "
            "    sentence-shape, and constructional template SHAPES match the declared `idiolect` block? "
            "    Penalize wrong sentence-length shape, missing hedges if hedge-dominant, "
            "    foreign templates, verbatim copying of `example_realization`.\n"
            "  • audience_appropriateness — does it respect `audience_design_note`, "
            "    `active_stances`, `surface.disclosure_depth`, `surface.length_band`? "
            "    Penalize wrong stance for audience, over-disclosure on public apps, off-band length."
        ),
        "+",
    ),
    "voice_self_consistency": (
        "0–3",
        (
            "Given 4 pipeline-generated samples by the same synthetic user + a 5th candidate, "
            "score 0-3 whether the 5th plausibly comes from the same synthetic-user voice at "
            "Layer 1 (concerns / topic-affinity, derivable from `identity_spine` shown in context) "
            "and Layer 2 (sentence structure / hedge habits, must be detected from the 4 prior samples). "
            "IGNORE surface emoji and catchphrase mimicry — those are decorations. "
            "Penalize idiolect mismatch even when topic matches; penalize topic mismatch even when idiolect matches."
        ),
        "+",
    ),
}

# evaluation/prompts.py@dc56d425 (`judge_personalization_dim_prompt`): a dim not in the
# table gets this spec (what `relationship_aware`, the key APPLICABILITY uses, gets).
DIM_DEFAULT_SPEC: Final = ("0–3", "Score this dimension.", "+")

# evaluation/prompts.py@dc56d425 (`judge_personalization_dim_prompt`): the f-string's
# source text, whose placeholders are the authors' local names.
DIM_PROMPT_TEMPLATE: Final = """{_JUDGE_PREFACE}

## Personalization dimension
**{dim}** — scale {scale}
{question}

## Ground truth (for this user, at this task moment)
```json
{gt}
```

## Agent output to judge
{agent_output}

## Task
Reason step-by-step: walk through the ground-truth slice and the agent output, then decide the score.
{guidance}
Output:
{output_block}
"""

VOICE_MATCH_OUTPUT_BLOCK: Final = (
    "```json\n"
    "{\n"
    '  "identity_coherence": <0-3>,\n'
    '  "idiolect_fidelity": <0-3>,\n'
    '  "audience_appropriateness": <0-3>,\n'
    '  "score": <mean of the three, rounded to 1 decimal>,\n'
    '  "reasoning": "<one short paragraph naming what each sub-score reflects>"\n'
    "}\n"
    "```"
)
VOICE_MATCH_GUIDANCE: Final = (
    "Score each of the three sub-components independently 0–3, then compute "
    "`score` as the mean. 3 = excellent on all three; 0 = terrible on all three. "
    "Do NOT inflate idiolect_fidelity just because identity_coherence was high "
    "(or vice versa) — each component is independent."
)
BINARY_GUIDANCE: Final = "For binary dims, output 1 if ANY violation is present, else 0."
SCALE_GUIDANCE: Final = "For 0–3 dims, 3 = excellent, 0 = terrible."

# --- which dimensions apply (personalization_rubric.py@8fd0dd9b) ----------------------

Applicability = Mapping[str, bool]

_OFF: Final[Mapping[str, bool]] = {
    "preference_alignment": False,
    "avoid_leak": False,
    "privacy_leak": False,
    "over_personalization": False,
    "subtle_personalization": False,
    "stale_preference_use": False,
    "relationship_aware": False,
    "voice_match": False,
}


def _on(*dims: str, voice_self_consistency: bool = False) -> dict[str, bool]:
    row = {**_OFF, **dict.fromkeys(dims, True)}
    if voice_self_consistency:
        row["voice_self_consistency"] = True
    row["telegraph_avoidance"] = True
    return row


APPLICABILITY: Final[Mapping[str, Applicability]] = {
    "chatbot_personalized_response": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "subtle_personalization", "stale_preference_use",
    ),
    "over_personalization_chatbot_text": _on(
        "avoid_leak", "privacy_leak", "over_personalization", "subtle_personalization"
    ),
    "over_personalization_repetition_recsys": _on("over_personalization"),
    "over_personalization_repetition_chatbot": _on("over_personalization"),
    "new_suggestions_recsys": _on("over_personalization"),
    "new_suggestions_chatbot": _on("over_personalization"),
    "over_personalization_context_shift": _on(
        "avoid_leak", "privacy_leak", "over_personalization", "relationship_aware"
    ),
    "over_personalization_distractor_reject": _on("privacy_leak", "over_personalization"),
    "over_personalization_sensitive_event": _on("privacy_leak", "over_personalization"),
    "preference_removal_regen": _on("privacy_leak", "over_personalization"),
    "agentic_user_tone_post": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "stale_preference_use", "voice_match", voice_self_consistency=True,
    ),
    "agentic_dm_digest": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "relationship_aware",
    ),
    "agentic_cross_app_repost": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "voice_match", voice_self_consistency=True,
    ),
    "agentic_auto_reply": _on(
        "preference_alignment", "privacy_leak", "over_personalization", "relationship_aware",
        "voice_match", voice_self_consistency=True,
    ),
    "agentic_vague_refind": _on("preference_alignment", "privacy_leak", "stale_preference_use"),
    "agentic_composed_post": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "stale_preference_use", "voice_match", voice_self_consistency=True,
    ),
    "agentic_send_post": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "voice_match", voice_self_consistency=True,
    ),
    "agentic_draft_audit": _on("privacy_leak", "over_personalization", "stale_preference_use"),
    "agentic_group_dm_summary": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "relationship_aware",
    ),
    "agentic_wrong_recipient_check": _on(
        "preference_alignment", "privacy_leak", "relationship_aware"
    ),
    "agentic_proactive_daily_catchup": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "over_personalization",
        "stale_preference_use",
    ),
    "agentic_trending_alert": _on("preference_alignment", "avoid_leak", "over_personalization"),
    "local_recommendation_geo_shift": _on(
        "preference_alignment", "avoid_leak", "privacy_leak", "stale_preference_use"
    ),
}  # fmt: skip
"""`APPLICABILITY`, personalization_rubric.py@8fd0dd9b, key for key in its order (every
row has `telegraph_avoidance` on; the authoring rows add `voice_self_consistency`). It has
no row for `agentic_community_post`, which the newest rubric adds: at 8fd0dd9b that task
has no applicable dimension and `combined_max_possible` 0."""

JUDGED_DIMS: Final = (
    "preference_alignment",
    "over_personalization",
    "subtle_personalization",
    "relationship_aware",
    "voice_match",
    "voice_self_consistency",
)
"""The dims a judge scores, in the order `score` (8fd0dd9b) asks for them, one call each
where applicable. The others (`avoid_leak`, `privacy_leak`, `stale_preference_use`,
`telegraph_avoidance`) are hard rules computed without a judge (`rules.leaks`; the
telegraph regex of `llm_postprocess._validate_no_creepy_phrasing`, not reproduced yet)."""
