"""The long-context history text (`datasets/v3/persona/longctx.py`): the authors' layout
(`serialize_history_for_context`, `_compact_event` in evaluation/inference_utils.py
@7758d563: no profile first, DM thread entries left out as `get_events` leaves them,
backend_query.py@af993eb8) written out by hand for a tiny persona, with and without
token counts; the compact event's keys. The mask itself is tested in
test_v3_streams.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.v3_backend import excerpt_values, write_persona

from inspect_personamem.datasets.v3.persona.longctx import compact_event, history_text
from inspect_personamem.datasets.v3.persona.streams import PersonaView, read_persona, visible

POST: dict[str, Any] = {
    "source_object_id": "1",
    "source_timestamp": 10,
    "formatted_timestamp": "00:00, 01/01/1970",
    "source_hashtags": ["#café"],
    "source_interaction_type": "explicit_positive",
    "interaction_format": {"app": "Instagram", "action_label": "Liked", "user_message": None},
    "content_type": "image",
    "content": {"title": "", "caption": "nice", "overall_description": "a view"},
    "preferences": [{"persona_item": "likes views", "category": "travel", "split": "test"}],
}
CHAT: dict[str, Any] = {
    "source_object_id": "2",
    "source_timestamp": 20,
    "source_interaction_type": "implicit_positive",
    "interaction_format": None,
    "conversation": [{"role": "user", "content": "hi", "embeds_pref_idx": [0]}],
    "preferences": [],
}


DM: dict[str, Any] = dict(
    POST, source_object_id="4", source_timestamp=15, is_dm=True, content={"caption": "DMTEXT"}
)
"""A DM thread entry, which the text leaves out."""


def tiny_view(tmp_path: Path) -> PersonaView:
    apps = {
        "instagram": [POST, DM],
        "chatbot": [CHAT],
        "ai_studio": [dict(CHAT, source_object_id="3")],
    }
    folder = write_persona(tmp_path / "7", {"user_id": "7", "name": "Ada"}, apps)
    return visible(read_persona(folder, "7"), 30)


def test_a_compact_event_keeps_what_the_authors_show() -> None:
    assert compact_event(POST) == {
        "t": 10,
        "when": "00:00, 01/01/1970",
        "action": "Liked",
        "type": "explicit_positive",
        "hashtags": ["#café"],
        "content_type": "image",
        "caption": "nice",
        "desc": "a view",
        "inferred_prefs": [{"persona_item": "likes views", "category": "travel"}],
    }  # user_message None and title "" dropped
    assert compact_event(CHAT) == {
        "t": 20,
        "type": "implicit_positive",
        "conversation": [{"role": "user", "content": "hi", "embeds_pref_idx": [0]}],
    }


def test_the_text_is_laid_out_as_the_authors_without_counts(tmp_path: Path) -> None:
    post = json.dumps(compact_event(POST), ensure_ascii=False)
    chat = json.dumps(compact_event(CHAT), ensure_ascii=False)
    assert "#café" in post  # not \u-escaped
    sections = [
        "\n# App: instagram — 1 events\n",
        post,
        "\n# App: facebook — 0 events\n",
        "\n# App: threads — 0 events\n",
        "\n# App: chatbot — 1 events\n",
        chat,
    ]
    view = tiny_view(tmp_path)
    assert [e.is_dm for e in view.events] == [False, True, False, False]
    assert history_text(view) == "\n".join(sections)
    assert "DMTEXT" not in history_text(view) and "Ada" not in history_text(view)


def test_token_counts_are_written_as_the_authors_write_them(tmp_path: Path) -> None:
    view = tiny_view(tmp_path)
    post = json.dumps(compact_event(POST), ensure_ascii=False)
    chat = json.dumps(compact_event(CHAT), ensure_ascii=False)
    a, c = len(post), len(chat)
    sections = [
        f"\n# App: instagram — 1 events, ~{a} tokens (running total before: 0)\n",
        post,
        f"\n[After instagram: running total {a}]\n",
        f"\n# App: chatbot — 1 events, ~{c} tokens (running total before: {a})\n",
        chat,
        f"\n[After chatbot: running total {a + c}]\n",
    ]
    assert history_text(view, apps=("instagram", "chatbot"), count_tokens=len) == "\n".join(
        sections
    )


def test_ai_studio_is_shown_only_when_asked(tmp_path: Path) -> None:
    view = tiny_view(tmp_path)
    assert "ai_studio" not in history_text(view)
    assert "\n# App: ai_studio — 1 events\n" in history_text(view, apps=("ai_studio",))


def test_persona_105s_real_post_compacts(tmp_path: Path) -> None:
    """Instagram item 6 of the excerpt: an image with one inferred preference."""
    post = excerpt_values("backend_105_instagram_items.json.txt")[1]
    compact = compact_event(post)
    assert compact["t"] == 1775183970 and compact["action"].startswith("Stayed on an image")
    assert compact["caption"].startswith("That last scene") and "title" not in compact
    assert compact["desc"].startswith("A cozy, high-contrast")
    assert [set(p) for p in compact["inferred_prefs"]] == [{"persona_item", "category"}]
    assert "user_message" not in compact and "preferences" not in compact
