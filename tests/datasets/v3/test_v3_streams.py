"""A PersonaMem-v3 persona's streams (`datasets/v3/persona/streams.py`): read once in time order,
masked strictly before a query's time with the authors' leak fields removed (checked by
markers, in file order and shuffled, in the view and in the long-context text), each
malformed event named; and persona 105's real items from the shared excerpts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.v3_backend import (
    PROFILE,
    STRIPPED_PREFERENCE,
    T,
    event,
    excerpt_values,
    persona_folder,
    write_persona,
)

from inspect_personamem.datasets.v3.persona import streams as streams_module
from inspect_personamem.datasets.v3.persona.longctx import history_text
from inspect_personamem.datasets.v3.persona.streams import (
    LEAK_FIELDS_EVENT,
    LEAK_FIELDS_PREFERENCE,
    PROFILE_VISIBLE,
    Persona,
    PersonaStreams,
    PersonaView,
    read_persona,
    visible,
)
from inspect_personamem.datasets.v3.release.spec import APPS
from inspect_personamem.errors import PersonaMemDataError


def dump(view: PersonaView) -> str:
    """Everything a view holds for a model, as text."""
    shown = {
        "profile": view.profile,
        "events": [e.visible_fields for e in view.events],
        "calendar": view.calendar,
    }
    return json.dumps(shown, ensure_ascii=False)


def order_name(seed: int | None) -> str:
    return "file order" if seed is None else f"shuffled {seed}"


@pytest.mark.parametrize("seed", [None, 0, 1, 2], ids=order_name)
def test_nothing_at_or_after_the_query_time_and_no_leak_field_is_seen(
    tmp_path: Path, seed: int | None
) -> None:
    folder, before, after = persona_folder(tmp_path, seed)
    view = visible(read_persona(folder, "7"), T)
    texts = {
        "view": dump(view),
        "long context": history_text(view, apps=APPS),
        "long context, authors' apps and counts": history_text(view, count_tokens=len),
    }
    for name, text in texts.items():
        assert "LEAK-" not in text, name
        for n in after:
            assert f"EV{n}X" not in text, (name, n)
    for n in before:
        assert f"EV{n}X" in texts["view"] and f"EV{n}X title" in texts["long context"]
    assert "KEEP-" in texts["view"]  # the authors strip only their list
    assert [c["entry"]["title"] for c in view.calendar] == ["CAL0X", "CAL1X"]
    assert all(e.source_timestamp < T for e in view.events)
    assert {int(e.source_object_id) - 1000 for e in view.events} == before
    times = [e.source_timestamp for e in view.events]
    assert times == sorted(times)
    assert set(view.profile) == set(PROFILE_VISIBLE)
    assert view.profile["name"] == "Ada Example" and view.profile["career"] is None


def test_the_stripped_fields_are_the_authors() -> None:
    assert LEAK_FIELDS_PREFERENCE == STRIPPED_PREFERENCE
    assert LEAK_FIELDS_EVENT == ("split",)


def test_the_mask_is_strict_at_each_event(tmp_path: Path) -> None:
    folder, _, _ = persona_folder(tmp_path, None)
    persona = read_persona(folder, "7")
    for e in persona.events:
        assert e not in visible(persona, e.source_timestamp).events
        assert e in visible(persona, e.source_timestamp + 1).events
    assert visible(persona, 0).events == ()
    assert "LEAK-" in json.dumps([e.fields for e in persona.events])  # kept for the scorer


def test_events_merge_in_time_then_app_then_file_order(tmp_path: Path) -> None:
    apps = {
        "threads": [event("threads", 1, 20), event("threads", 2, 10), event("threads", 3, 10)],
        "instagram": [event("instagram", 4, 10)],
        "ai_studio": [event("ai_studio", 5, 5)],
    }
    persona = read_persona(write_persona(tmp_path / "7", PROFILE, apps), "7")
    order = [(e.app, e.index) for e in persona.events]
    assert order == [("ai_studio", 0), ("instagram", 0), ("threads", 1), ("threads", 2)] + [
        ("threads", 0)
    ]
    assert persona.calendar == () and persona.trending == ()


def test_a_persona_is_read_once(tmp_path: Path) -> None:
    write_persona(tmp_path / "7", PROFILE, {"chatbot": [event("chatbot", 1, 5)]})
    streams = PersonaStreams(tmp_path)
    first = streams.visible("7", 6)
    (tmp_path / "7" / "chatbot.json").write_text("[]", encoding="utf-8")
    assert streams.persona("7") is streams.persona("7")
    assert streams.visible("7", 6).events == first.events != ()


def test_with_keep_only_the_last_personas_asked_for_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for uid in ("7", "8", "9"):
        write_persona(tmp_path / uid, {**PROFILE, "user_id": uid}, {"chatbot": []})
    read: list[str] = []

    def counted(folder: Path, user_id: str) -> Persona:
        read.append(user_id)
        return read_persona(folder, user_id)

    monkeypatch.setattr(streams_module, "read_persona", counted)
    kept = PersonaStreams(tmp_path, keep=2)
    for uid in ("7", "8", "7", "9", "7", "8"):
        assert kept.persona(uid).user_id == uid
    # 7 stays (asked for again before 9 came); 8 went when 9 was read, so it is read again
    assert read == ["7", "8", "9", "8"]
    read.clear()
    every = PersonaStreams(tmp_path)
    for uid in ("7", "8", "9", "7", "8", "9"):
        every.persona(uid)
    assert read == ["7", "8", "9"]
    with pytest.raises(ValueError, match="at least 1"):
        PersonaStreams(tmp_path, keep=0)


def bad(**changes: Any) -> dict[str, Any]:
    item = event("facebook", 9, 100)
    for key, value in changes.items():
        if value is None:
            del item[key]
        else:
            item[key] = value
    return item


@pytest.mark.parametrize(
    ("item", "field", "problem"),
    [
        (bad(source_timestamp=None), "source_timestamp", "expected unix seconds"),
        (bad(source_timestamp="100"), "source_timestamp", "found '100'"),
        (bad(source_timestamp=True), "source_timestamp", "found True"),
        (bad(source_timestamp=1.5), "source_timestamp", "found 1.5"),
        (bad(source_object_id=None), "source_object_id", "found None"),
        (bad(preferences={"a": 1}), "preferences", "a list of objects"),
        (bad(content="text"), "content", "a JSON object"),
        (bad(conversation={}), "conversation", "a JSON list"),
        (bad(source_hashtags="#a"), "source_hashtags", "a list of strings"),
    ],
)
def test_a_malformed_event_is_named_by_file_persona_index_and_field(
    tmp_path: Path, item: dict[str, Any], field: str, problem: str
) -> None:
    folder = write_persona(tmp_path / "7", PROFILE, {"facebook": [event("facebook", 1, 5), item]})
    with pytest.raises(PersonaMemDataError) as error:
        read_persona(folder, "7")
    message = str(error.value)
    ident = "" if field == "source_object_id" else " (source_object_id '1009')"
    expected = f"{folder / 'facebook.json'} (persona 7), event 1{ident}, field '{field}': "
    assert message.startswith(expected) and problem in message and "\n" not in message


def test_malformed_files_are_named(tmp_path: Path) -> None:
    folder = write_persona(tmp_path / "7", PROFILE, {})
    (folder / "threads.json").write_text("[{", encoding="utf-8")
    with pytest.raises(PersonaMemDataError, match=r"threads.json \(persona 7\): not valid JSON"):
        read_persona(folder, "7")
    (folder / "threads.json").unlink()
    with pytest.raises(PersonaMemDataError, match=r"threads.json \(persona 7\): not readable"):
        read_persona(folder, "7")
    folder = write_persona(tmp_path / "8", PROFILE, {})
    with pytest.raises(PersonaMemDataError, match=r"profile.json \(persona 8\), field 'user_id'"):
        read_persona(folder, "8")
    folder = write_persona(tmp_path / "7", PROFILE, {}, [{"mod_id": "m", "ts": 1, "action": "x"}])
    with pytest.raises(PersonaMemDataError, match="modification 0 .mod_id 'm'., field 'action'"):
        read_persona(folder, "7")


def test_persona_105s_real_items_are_read_and_masked(tmp_path: Path) -> None:
    """Whole items cut from the excerpts (each file is a few of a list's items)."""
    apps = {
        "instagram": excerpt_values("backend_105_instagram_items.json.txt"),
        "facebook": excerpt_values("backend_105_facebook_item13.json.txt"),
        "threads": excerpt_values("backend_105_threads_items.json.txt"),
        "chatbot": excerpt_values("backend_105_chatbot_item1.json.txt"),
        "ai_studio": excerpt_values("backend_105_ai_studio_item0.json.txt"),
    }
    calendar = excerpt_values("backend_105_calendar.json.txt")
    hashtags = excerpt_values("backend_105_trending.json.txt")
    trending = {"built_at": "2026-05-21T23:08:38.625204+00:00", "hashtags": hashtags}
    profile = {"user_id": "105", "name": "Micah Ainsworth Park", "hidden_personas": []}
    folder = write_persona(tmp_path / "105", profile, apps, calendar, trending)
    persona = read_persona(folder, "105")
    assert len(persona.events) == 7 and [t.rank for t in persona.trending] == [1, 16]
    assert [c.mod_id for c in persona.calendar][-2:] == ["mod_rep_027", "mod_027"]
    raw = json.dumps([e.fields for e in persona.events])
    assert all(f'"{field}"' in raw for field in ("stereotype_mark", "confidence_score_init"))
    t = 1775189841  # facebook item 13's time: it and what follows are masked
    view = visible(persona, t)
    assert [e.source_object_id for e in view.events] == [
        "62323", "514587", "372960", "140606", "903477",
    ]  # fmt: skip
    shown = dump(view)
    assert all(f'"{field}"' not in shown for field in STRIPPED_PREFERENCE)
    assert "838757" not in shown and "171773" not in shown
    assert [c["mod_id"] for c in view.calendar] == ["mod_001"]
