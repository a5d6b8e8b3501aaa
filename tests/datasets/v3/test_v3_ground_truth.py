"""The agentic ground-truth block (`prompts.ground_truth`, after the authors'
`evaluation/ground_truth_builders.py`@651b9588 as `agentic_tasks.py`@8e2a111f calls it):
per task type, its sections under their real headers, in its place before the grounded
directive; none for `agentic_community_post` and `agentic_vague_refind`; and, beside
`test_v3_time_mask`, planted markers: nothing at or after the query's time (a post, a DM
message inside a thread whose event is later, a DM event of a thread, a trending post,
a chatbot turn), no stripped field, no hidden profile key and no scorer-only field
reaches a prompt with the block."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.v3_backend import STRIPPED_PREFERENCE, leak, query_row, write_persona, write_queries

from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.prompts.agentic import COMPOSE_LENGTH_AND_VOICE_RULE
from inspect_personamem.datasets.v3.prompts.ground_truth import BUILDERS, HEADING
from inspect_personamem.datasets.v3.prompts.voice import dominant_frame, voice_section
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_to_sample

T = 1_775_300_000
DAY = 86_400
UID = "7"
GROUNDED = "The ground-truth context above contains the actual user data needed"
FUTURE = re.compile(r"AFTER\w*X")
HIDDEN = re.compile(r"LEAK-|PROFILEHIDDENX|SECRET\w*X|GOLDX")


def post(n: int, ts: int, mark: str, **extra: Any) -> dict[str, Any]:
    """An event at `ts` whose every shown text carries `mark`, its stripped fields a leak."""
    preference = {"persona_item": f"{mark} item", "category": "music"}
    preference |= {field: leak(field, mark) for field in STRIPPED_PREFERENCE}
    return {
        "source_object_id": str(n),
        "source_timestamp": ts,
        "source_hashtags": [f"#{mark}"],
        "source_interaction_type": "explicit_positive",
        "interaction_format": {"action_label": f"posted {mark}"},
        "content": {"title": f"{mark} title", "caption": f"{mark} caption"},
        "preferences": [preference],
        "is_self_authored": True,
        "is_dm": False,
        "split": leak("split", mark),
        **extra,
    }


def message(n: int, ts: int, sender: str, mark: str) -> dict[str, Any]:
    return {"msg_id": f"m{n}", "sender": sender, "timestamp": ts, "text": f"{mark} said"}


def persona(tmp_path: Path) -> PersonaContexts:
    """A persona around T: posts, DM threads of both layouts, trending posts and chatbot
    turns before, at and after T; a voice, friends and hidden profile keys."""
    instagram = [
        post(1, T - 2 * DAY, "BEFOREPOSTX"),
        post(2, T - 30 * DAY, "OLDPOSTX"),  # past the 21 days' window
        post(3, T, "AFTERATPOSTX"),
        post(4, T + 60, "AFTERPOSTX"),
        post(
            13,
            T - 2 * DAY,
            "OFFTRENDX",
            is_self_authored=False,
            is_trending=True,
            trending_relevance="irrelevant",
        ),  # fmt: skip
        post(5, T - 3600, "BEFORETRENDX", is_self_authored=False, is_trending=True),
        post(14, T - 3 * DAY, "EARLYTRENDX", is_self_authored=False, is_trending=True),
        post(6, T + 10, "AFTERTRENDX", is_self_authored=False, is_trending=True),
        {  # a thread held in one event, the event after T, a message before
            **post(7, T + 5 * DAY, "AFTERDMEVENTX", is_dm=True, is_self_authored=False),
            "thread_id": "dm_a",
            "participants": ["self", "friend_1"],
            "messages": [
                message(1, T - 600, "friend_1", "BEFOREDMX"),
                message(2, T, "friend_1", "AFTERATDMX"),
                message(3, T + 5, "friend_1", "AFTERDMX"),
            ],
        },
        {  # a thread whose every message is after T (its event, before T, is counted
            # in the hashtag summary, as `hashtag_summary` reads every event before T)
            **post(8, T - DAY, "LATETHREADX", is_dm=True, is_self_authored=False),
            "thread_id": "dm_late",
            "participants": ["self", "friend_2"],
            "messages": [message(4, T + 1, "friend_2", "AFTERLATEX")],
        },
        # a thread as one event per message
        post(9, T - 300, "BEFOREGROUPX", is_dm=True, thread_id="g_1", author_id="friend_2"),
        post(10, T + 1, "AFTERGROUPX", is_dm=True, thread_id="g_1", author_id="friend_2"),
    ]
    chatbot = [
        post(11, T - 100, "BEFORECHATX", is_self_authored=False),
        post(12, T + 100, "AFTERCHATX", is_self_authored=False),
    ]
    profile = {
        "user_id": UID,
        "name": "Ada",
        "user_voice": {
            "identity_spine": {"signature_concerns": ["VOICECONCERNX"]},
            "idiolect": {
                "constructional_templates": [
                    {"pattern": "rare [x]", "example_realization": "r", "frequency": "rare"},
                    {"pattern": "[h] VOICETEMPLATEX", "frequency": "common"},
                ]
            },
            "phrases_to_avoid": ["VOICEAVOIDX"],
        },
        "app_personas": {"Instagram": {"active_stances": ["deadpan"], "delta_summary": "APPX"}},
        "hidden_personas": [{"type": "identity_anchor", "evidence_rows": 3, "label": "LEAK-hp"}],
        "friends": [
            {"friend_id": "friend_1", "display_name": "Bo FRIENDONEX", "relationship_depth": "x"},
            {"friend_id": "friend_2", "display_name": "Cy FRIENDTWOX", "shared_interests": ["j"]},
        ],
        "preferences": [{"persona_item": "PROFILEHIDDENX"}],
        "proactive_trigger_candidates": {"close_friend_update": "PROFILEHIDDENX"},
    }
    apps = {"instagram": instagram, "chatbot": chatbot}
    write_persona(tmp_path / "backend" / UID, profile, apps)
    return PersonaContexts(PersonaStreams(tmp_path / "backend"))


VISIBLE: dict[str, Any] = {
    "app": "instagram",
    "target_app": "instagram",
    "window": "24h",
    "thread_id": "dm_a",
    "sender_id": "friend_1",
    "inbound_message": "are we on?",
    "context": "we talked about the trail",
    "source_post": {"caption": "a post", "hashtags": []},
    "source_app": "threads",
    "topic": "jazz",
}
SCORER = {"notes": "SECRETNOTEX", "example_response": "GOLDX", "participants": ["SECRETPX"]}
AGENTIC = [name for name, task in TASK_TYPES.items() if task.family == "agentic_tasks"]


def samples(tmp_path: Path, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    contexts = persona(tmp_path)
    rows = [
        query_row(
            query_id=f"{UID}:{n:04d}:i{n}",
            seq=str(n),
            user_id=UID,
            task_type=task_type,
            instance_id=f"i{n}",
            ts=str(T),
            ts_iso="2026-04-04T10:53:20+00:00",
            instance_json=json.dumps({**VISIBLE, **SCORER, **(changes or {})}),
        )
        for n, task_type in enumerate(AGENTIC)
    ]
    path = write_queries(tmp_path / "benchmark" / UID, rows)
    return {q.task_type: query_to_sample(q, contexts, path) for q in read_queries(path)}


SECTIONS = {
    "agentic_send_post": [
        "### User voice — scoped for this task",
        "### Recent self-authored posts on instagram (last 21d)",
    ],
    "agentic_cross_app_repost": [
        "### User voice — scoped for this task",
        "### Recent self-authored posts on instagram (last 21d)",
    ],
    "agentic_dm_digest": ["### DM threads on instagram in past 24h (at T=2026-04-04 10:53)"],
    "agentic_auto_reply": [
        "### User voice — scoped for this task",
        "### Full thread dm_a on instagram",
        "### Sender friend_1 (from friends graph)",
    ],
    "agentic_group_dm_summary": [
        "### User voice — scoped for this task",
        "### Group DM thread dm_a on instagram",
        "### Participants (from friends graph)",
    ],
    "agentic_proactive_daily_catchup": [
        "### Activity in past 24h (T=2026-04-04 10:53)",
        "#### instagram (1 events)",
        "#### chatbot (1 events)",
        "### Top hashtags (lifetime, by total engagement)",
    ],
    "agentic_trending_alert": [
        "### Trending hashtags right now",
        "- #1: #BEFORETRENDX (aligned with this user's interests)",
        "### User's top positive hashtags",
    ],
}
"""Each type's sections, under the authors' headers (`ground_truth_builders.py`@651b9588)."""
SEEN = {
    "agentic_send_post": ["BEFOREPOSTX caption", "VOICETEMPLATEX", "VOICEAVOIDX", "APPX"],
    "agentic_dm_digest": ["BEFOREDMX said", "BEFOREGROUPX caption"],
    "agentic_auto_reply": ["BEFOREDMX said", "Bo FRIENDONEX", "tajfel:social_identity"],
    "agentic_group_dm_summary": ["BEFOREDMX said", "Bo FRIENDONEX"],
    "agentic_proactive_daily_catchup": ["BEFORETRENDX caption", "BEFORECHATX caption"],
    "agentic_trending_alert": ["#BEFORETRENDX", "#BEFOREPOSTX: +1"],
}
"""What each block shows from before T (so the absence checks are not vacuous)."""


def test_every_agentic_type_the_runner_grounds_has_its_block_and_the_others_none(
    tmp_path: Path,
) -> None:
    assert set(AGENTIC) == {*BUILDERS, "agentic_community_post", "agentic_vague_refind"}
    built = samples(tmp_path)
    for task_type, sample in built.items():
        text = str(sample.input)
        assert sample.metadata["ground_truth_block"] == (task_type in BUILDERS), task_type
        if task_type not in BUILDERS:
            assert HEADING not in text, task_type
            continue
        assert text.count(HEADING) == 1, task_type
        block = text.split(HEADING, 1)[1]
        for header in SECTIONS[task_type]:
            assert f"\n{header}\n" in block, (task_type, header)
        for seen in SEEN.get(task_type, []):
            assert seen in block, (task_type, seen)
        # the block comes before the directive that names it, and after the task's text
        assert text.index(HEADING) < text.index(GROUNDED), task_type
        assert text.index("# Task T") < text.index(HEADING), task_type


def test_nothing_at_or_after_the_query_no_stripped_field_and_no_hidden_key_reaches_a_prompt(
    tmp_path: Path,
) -> None:
    for task_type, sample in samples(tmp_path).items():
        text = str(sample.input)
        assert not FUTURE.search(text), (task_type, FUTURE.search(text))
        assert not HIDDEN.search(text), (task_type, HIDDEN.search(text))
        assert "OLDPOSTX" not in text.split("self-authored posts")[-1].split("###")[0]


def test_a_thread_shows_its_messages_before_t_though_its_event_is_later(tmp_path: Path) -> None:
    digest = str(samples(tmp_path)["agentic_dm_digest"].input)
    assert "**thread_id**: dm_a — participants: self, friend_1 (group=False, msgs_shown=1)" in (
        digest
    )
    assert "dm_late" not in digest  # every message after T: no thread
    assert "**thread_id**: g_1" in digest


def test_a_type_without_a_block_keeps_its_own_directive(tmp_path: Path) -> None:
    built = samples(tmp_path, {"thread_id": "no_such_thread", "sender_id": "nobody"})
    community = str(built["agentic_community_post"].input)
    assert "Before responding, call `mcp__instagram__get_feed`" in community
    assert GROUNDED not in community
    # the voice alone still makes a block, and the grounded directive follows it
    reply = str(built["agentic_auto_reply"].input)
    assert HEADING in reply and GROUNDED in reply and "Full thread" not in reply


def test_without_a_voice_or_a_thread_the_reply_has_no_block_and_asks_for_the_thread(
    tmp_path: Path,
) -> None:
    contexts = persona(tmp_path)
    profile_path = tmp_path / "backend" / UID / "profile.json"
    profile = json.loads(profile_path.read_text(encoding="utf-8"))
    profile_path.write_text(json.dumps({**profile, "user_voice": {}}), encoding="utf-8")
    contexts = PersonaContexts(PersonaStreams(tmp_path / "backend"))
    row = query_row(
        query_id=f"{UID}:0000:i0",
        seq="0",
        user_id=UID,
        task_type="agentic_auto_reply",
        instance_id="i0",
        ts=str(T),
        ts_iso="2026-04-04T10:53:20+00:00",
        instance_json=json.dumps({**VISIBLE, "thread_id": "none", "sender_id": "none"}),
    )
    path = write_queries(tmp_path / "benchmark" / UID, [row])
    text = str(query_to_sample(read_queries(path)[0], contexts, path).input)
    assert HEADING not in text and GROUNDED not in text
    assert "first call `mcp__instagram__get_dm_thread` (with the relevant" in text


@pytest.mark.parametrize("task_type", ["agentic_send_post", "agentic_cross_app_repost"])
def test_the_voice_tasks_keep_the_compose_rule_after_the_block(
    tmp_path: Path, task_type: str
) -> None:
    text = str(samples(tmp_path)[task_type].input)
    assert text.index(HEADING) < text.index(COMPOSE_LENGTH_AND_VOICE_RULE)


REAL_VOICE = Path(__file__).parent / "real" / "profile_105_voice.json"
"""Persona 105's voice and Instagram persona (profile.json@4d47ffd1, a cut, CC-BY-NC-4.0)."""


def test_the_voice_on_a_real_profile_reads_as_the_authors_render_it() -> None:
    profile = json.loads(REAL_VOICE.read_text(encoding="utf-8"))
    voice, app = profile["user_voice"], profile["app_personas"]["Instagram"]
    # each line as `render_voice_for_test_card` (data_preparation/prompts.py) writes it:
    # the first of the most frequent templates, no catchphrase line for an empty residue
    expected = [
        "### User voice — scoped for this task",
        "- **Identity spine — signature concerns**: reliability over showiness, comfort "
        "disciplined by self-control, faith-guided steadiness in uncertain conditions, "
        "practical learning that improves mobility and family options",
        "- **Idiolect template** (apply abstractly, never recite): `[softener] "
        '[value-judgement], [subject] just [verb] ___` — e.g. "honestly, this just feels solid"',
        "- **Idiolect markers**: hedge/booster=hedge_dominant; attitude=judgement, "
        "engagement=heteroglossic_acknowledge",
        "- **Emoji palette** (subset only): 🙏 😂 ❤️ 🙌 🐶 🙂",
        f"- **Voice avoid**: {voice['voice_avoid'][:240]}",
        '- **Phrases to avoid**: "main character energy", "I fear", "literally obsessed", '
        '"alpha male", "viral"',
        "- **On instagram** (audience selection from above repertoire):",
        "    • stances=[tenderly-aspirational, low-key amused, steady-pragmatic]  "
        "registers=[supportive relational, everyday practical]",
        "    • surface: length=220-380, emoji_shift=1, disclosure=medium, effort=medium",
        f"    • self-censoring: {app['surface']['audience_self_censoring'][:200]}",
        f"    • why this audience picks this subset: {app['delta_summary'][:240]}",
        f"    • app avoid: {app['app_avoid'][:200]}",
    ]
    assert voice_section(profile, "instagram") == "\n" + "\n".join(expected) + "\n"
    assert voice_section(profile, "threads").count("\n- ") == 6  # no Threads persona here
    assert voice_section({**profile, "user_voice": {}}, "instagram") == ""


def test_the_motivational_frame_is_the_strongest_organic_hidden_personas() -> None:
    def frame(*hidden: dict[str, Any]) -> str | None:
        return dominant_frame({"hidden_personas": list(hidden)})

    weak = {"type": "private_hobby", "evidence_rows": 2}
    strong = {"type": "identity_anchor", "evidence_rows": 9}
    synthetic = {"type": "aspiration", "evidence_rows": 99, "is_synthetic": True}
    audited = {**strong, "motivation_audit": {"dominant_frame": "csikszentmihalyi:flow"}}
    assert frame(weak, strong, synthetic) == "tajfel:social_identity"
    assert frame(weak, audited) == "csikszentmihalyi:flow"
    assert frame(synthetic) is None and frame({"type": "unknown", "evidence_rows": 1}) is None
    shown = voice_section({"user_voice": {"voice_avoid": "x"}, "hidden_personas": [weak]}, "")
    assert shown.endswith(
        "- **Motivational frame**: `goffman:back_stage` — private consumption away from any "
        "audience — back-stage self.\n"
    )


def test_the_trending_list_is_the_feeds_trending_posts_before_t_aligned_first_in_file_order(
    tmp_path: Path,
) -> None:
    text = str(samples(tmp_path)["agentic_trending_alert"].input)
    listed = text.split("### Trending hashtags right now\n", 1)[1].split("\n\n", 1)[0]
    aligned = " (aligned with this user's interests)"
    assert listed.splitlines() == [
        f"- #1: #BEFORETRENDX{aligned}",  # the file's order, not time's
        f"- #2: #EARLYTRENDX{aligned}",
        "- #3: #OFFTRENDX",  # not aligned: after the aligned
    ]
