"""A persona's timeline as a run keeps it (`datasets/v3/persona/timeline.py`): each event
of the history's apps, DMs left out, with its time, app, id and line, the lines
compressed and given back as written."""

from __future__ import annotations

import json

import pytest
from support.v3_backend import PROFILE, event, timeline_events, write_persona

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.persona.longctx import event_line
from inspect_personamem.datasets.v3.persona.streams import PROFILE_VISIBLE, PersonaStreams
from inspect_personamem.datasets.v3.persona.timeline import Timeline
from inspect_personamem.datasets.v3.release.spec import AUTHORS_APPS


@pytest.fixture(scope="module")
def streams(tmp_path_factory: pytest.TempPathFactory) -> PersonaStreams:
    folder = generate(tmp_path_factory.mktemp("v3"), personas=1, queries_per_type=1, seed=3)
    return PersonaStreams(folder.root / "backend")


def test_it_holds_each_shown_events_time_app_id_and_line(streams: PersonaStreams) -> None:
    (uid,) = [p.name for p in streams.backend.iterdir()]
    persona = streams.persona(uid)
    timeline = Timeline.of(persona, AUTHORS_APPS)
    events = timeline_events(streams, uid)
    assert len(timeline) == len(events) > 100
    assert list(timeline.times) == [e.source_timestamp for e in events]
    assert timeline.apps == tuple(e.app for e in events)
    assert timeline.ids == tuple(e.source_object_id for e in events)
    heading, card = timeline.card.split("\n", 1)
    assert heading == "# User profile"  # the profile's safe slice alone
    assert json.loads(card) == {key: persona.profile.get(key) for key in PROFILE_VISIBLE}
    assert "hidden_personas" in persona.profile
    lines = [event_line(e.visible_fields) for e in events]
    assert timeline.lines(len(events)) == lines
    assert timeline.lines(len(events) + 5) == lines
    assert timeline.lines(7) == lines[:7]
    assert timeline.lines(0) == []
    # kept compressed: a fraction of the text it gives back
    assert len(timeline.packed) * 3 < len("\n".join(lines).encode())


def test_dm_entries_and_other_apps_are_left_out(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("dm")
    dm = {**event("instagram", 2, 20), "is_dm": True}
    files = {"instagram": [event("instagram", 1, 10), dm], "ai_studio": [event("ai_studio", 3, 5)]}
    write_persona(root / "7", PROFILE, files)
    persona = PersonaStreams(root).persona("7")
    timeline = Timeline.of(persona, AUTHORS_APPS)
    assert timeline.apps == ("instagram",) and list(timeline.times) == [10]
    lone = {**event("instagram", 4, 30), "caption": "\ud83d"}  # JSON may escape one
    write_persona(root / "8", {**PROFILE, "user_id": "8"}, {"instagram": [lone]})
    assert Timeline.of(PersonaStreams(root).persona("8"), AUTHORS_APPS).lines(1) == [
        event_line(lone)
    ]
    empty = Timeline.of(persona, ("chatbot",))
    assert len(empty) == 0 and empty.lines(3) == []
