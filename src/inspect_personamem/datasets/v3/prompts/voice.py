"""The user-voice section of the agentic ground-truth block (`prompts.ground_truth`), as
the authors render it for a test card: `_format_voice_block` of
`evaluation/ground_truth_builders.py`@651b9588, which calls
`render_voice_for_test_card` and `cluster_dominant_frame` of `data_preparation/prompts.py`
(stored copy id 58523966504, its commit 1606c1b3). The section's words, labels and
caps are theirs, verbatim; so is `FRAME_DESCRIPTIONS` (data the prompt shows).

It reads the WHOLE profile (`user_voice`, `app_personas`, `hidden_personas`): the authors
give the voice-matching tasks the voice on purpose ("these tasks measure voice-fidelity
given context, not voice inference", the builders' docstring).

Where ours differs: a `user_voice` without the layered fields (`identity_spine`,
`idiolect`, `repertoire`) is rendered by the same layered renderer (the lines it has
data for) where theirs falls back to the generation-time renderer
(`_render_voice_for_consumer`); the release's profiles are layered (105's profile.json
@4d47ffd1), the generator's are not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_TEMPLATE_FREQ_RANK: Final = {"common": 3, "frequent": 3, "occasional": 2, "rare": 1}
_TYPE_DEFAULT_FRAME: Final = {
    "parasocial_attachment": "horton_wohl:parasocial",
    "compensatory_need": "kardefelt_winther:compensatory_use",
    "identity_anchor": "tajfel:social_identity",
    "intimate_interest": "barthes:punctum",
    "intellectual_curiosity": "berlyne:specific_curiosity",
    "private_hobby": "goffman:back_stage",
    "medical_aesthetic_concern": "health_belief_model:active_use",
    "covert_concern": "lazarus_folkman:emotion_focused_coping",
    "emotional_pattern": "lazarus_folkman:emotion_focused_coping",
    "aspiration": "higgins:ideal_self",
    "personality_trait": "stryker:role_identity",
    "sensitive_life_event": "lazarus_folkman:emotion_focused_coping",
}
FRAME_DESCRIPTIONS: Final = {
    "self_determination_theory:relatedness": "engagement satisfies a need for connection / belonging.",  # noqa: E501
    "self_determination_theory:autonomy": "engagement is an expression of agency / self-direction.",
    "self_determination_theory:competence": "engagement builds a sense of skill / mastery.",
    "goffman:back_stage": "private consumption away from any audience — back-stage self.",
    "uses_and_gratifications:identity": "public identity construction — performing who they are.",
    "uses_and_gratifications:integration": "feeling part of a community / shared world.",
    "kardefelt_winther:compensatory_use": "closing an unmet real-world need privately (high privacy_ratio).",  # noqa: E501
    "higgins:ideal_self": "pursuing the version of self the user aspires to become.",
    "higgins:ought_self": "managing what the user feels they SHOULD be (obligation, anxiety).",
    "horton_wohl:parasocial": "sustained one-sided emotional bond with a specific named figure.",
    "lazarus_folkman:emotion_focused_coping": "regulating the feelings about a stressor (vent, ruminate, soothe).",  # noqa: E501
    "csikszentmihalyi:flow": "deep absorption — challenge matched to skill, time disappears.",
    "berlyne:specific_curiosity": "sustained inquiry into one specific topic over time.",
    "barthes:punctum": "a SPECIFIC arresting detail (object, texture, dynamic) does the hooking.",
    "tajfel:social_identity": "in-group signaling — drawing self-esteem from a group identity.",
    "stryker:role_identity": "role-based identity (parent, professional, fan, etc.).",
    "health_belief_model:active_use": "active medication / regimen / aesthetic-medicine practice — not curiosity.",  # noqa: E501
    "tversky_kahneman:salience_availability": "engagement reflects what's available / trending right now, not stable preference.",  # noqa: E501
    "bikhchandani:informational_cascade": "peer-driven engagement — others are doing it, so they look.",  # noqa: E501
    "berlyne:diversive_curiosity": "one-off novelty click — does not recur.",
    "schwarz:mood_as_information": "momentary mood drove the click — wouldn't happen on a different day.",  # noqa: E501
    "variable_ratio_reinforcement": "habituated scrolling — the engagement IS the act, not the content.",  # noqa: E501
    "algorithmic_surfacing": "the recommender pushed it — user just glanced.",
    "short_term_episodic_event": "active life episode (travel, event prep, medical consultation).",
    "none": "no frame meaningfully applies.",
}


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def dominant_frame(profile: Mapping[str, Any]) -> str | None:
    """The frame of the profile's strongest organic hidden persona (most `evidence_rows`,
    the first of a tie): its audited `dominant_frame`, else its type's default; None
    where there is none or it is "none"."""
    organic = [
        hp
        for hp in _list(profile.get("hidden_personas"))
        if isinstance(hp, dict) and not hp.get("is_synthetic")
    ]
    if not organic:
        return None
    top = max(organic, key=lambda hp: int(hp.get("evidence_rows") or 0))
    frame = _dict(top.get("motivation_audit")).get("dominant_frame") or _TYPE_DEFAULT_FRAME.get(
        str(top.get("type") or ""), "none"
    )
    return frame if frame and frame != "none" else None


def voice_section(profile: Mapping[str, Any], target_app: str) -> str:
    """`### User voice — scoped for this task` and the voice's lines for `target_app`
    ("" where the profile has no voice)."""
    voice = _dict(profile.get("user_voice"))
    if not voice:
        return ""
    app_persona = _dict(_dict(profile.get("app_personas")).get(target_app.capitalize()))
    body = _test_card(voice, app_persona, target_app, dominant_frame(profile))
    return "\n### User voice — scoped for this task\n" + body if body.strip() else ""


def _test_card(
    voice: Mapping[str, Any], app: Mapping[str, Any], target_app: str, frame: str | None
) -> str:
    spine, idio = _dict(voice.get("identity_spine")), _dict(voice.get("idiolect"))
    lines: list[str] = []
    if sigs := _list(spine.get("signature_concerns")):
        lines.append("- **Identity spine — signature concerns**: " + ", ".join(sigs[:4]))
    if templates := _list(idio.get("constructional_templates")):
        top = sorted(
            templates,
            key=lambda t: -_TEMPLATE_FREQ_RANK.get(str(_dict(t).get("frequency", "")).lower(), 0),
        )[0]
        pattern, example = _dict(top).get("pattern", ""), _dict(top).get("example_realization", "")
        if pattern:
            lines.append(
                "- **Idiolect template** (apply abstractly, never recite): "
                f'`{pattern}` — e.g. "{example}"'
                if example
                else f"`{pattern}`"
            )
    if idio.get("hedge_booster_ratio") or idio.get("appraisal_fingerprint"):
        af = _dict(idio.get("appraisal_fingerprint"))
        bits = [f"hedge/booster={idio.get('hedge_booster_ratio') or '?'}"]
        if af:
            attitude, engagement = af.get("attitude_dominant", "?"), af.get("engagement_style", "?")
            bits.append(f"attitude={attitude}, engagement={engagement}")
        lines.append("- **Idiolect markers**: " + "; ".join(bits))
    if residue := _list(idio.get("catchphrase_residue")) or _list(voice.get("personal_phrases")):
        rendered = ", ".join(f'"{p}"' for p in residue[:4])
        lines.append(
            f"- **Catchphrase residue** (use ZERO most of the time; AT MOST one): {rendered}"
        )
    if palette := _list(voice.get("emoji_palette")):
        lines.append(f"- **Emoji palette** (subset only): {' '.join(map(str, palette[:10]))}")
    if voice.get("voice_avoid"):
        lines.append(f"- **Voice avoid**: {str(voice['voice_avoid'])[:240]}")
    if avoid := _list(voice.get("phrases_to_avoid")):
        lines.append("- **Phrases to avoid**: " + ", ".join(f'"{p}"' for p in avoid[:6]))
    if app:
        lines += _app_lines(app, target_app)
    if frame:
        lines.append(f"- **Motivational frame**: `{frame}` — {FRAME_DESCRIPTIONS.get(frame, '')}")
    return "\n".join(lines) + "\n"


def _app_lines(app: Mapping[str, Any], target_app: str) -> list[str]:
    """The destination app's modulation: its stances and registers, surface, delta, avoid."""
    name = target_app or app.get("app_name") or ""
    lines = [
        f"- **On {name}** (audience selection from above repertoire):"
        if name
        else "- **On this app**:"
    ]
    bits = []
    if stances := _list(app.get("active_stances")):
        bits.append(f"stances=[{', '.join(stances[:4])}]")
    if registers := _list(app.get("active_registers")):
        bits.append(f"registers=[{', '.join(registers[:4])}]")
    if bits:
        lines.append("    • " + "  ".join(bits))
    surface = _dict(app.get("surface")) or _dict(app.get("expression"))
    knobs = []
    if surface.get("length_band"):
        knobs.append(f"length={surface['length_band']}")
    if surface.get("emoji_intensity_shift") is not None:
        knobs.append(f"emoji_shift={surface['emoji_intensity_shift']}")
    if surface.get("disclosure_depth"):
        knobs.append(f"disclosure={surface['disclosure_depth']}")
    if surface.get("effort_level"):
        knobs.append(f"effort={surface['effort_level']}")
    if knobs:
        lines.append("    • surface: " + ", ".join(knobs))
    if surface.get("audience_self_censoring"):
        lines.append(f"    • self-censoring: {str(surface['audience_self_censoring'])[:200]}")
    if delta := app.get("delta_summary") or app.get("style_description"):
        lines.append(f"    • why this audience picks this subset: {str(delta)[:240]}")
    if app.get("app_avoid"):
        lines.append(f"    • app avoid: {str(app['app_avoid'])[:200]}")
    return lines
