"""PersonaMem-v3 histories as `Contexts` (`datasets/v3/persona/histories.py`): a persona's
timeline, a query's end counted from its time, both layouts masked strictly before it
(by markers, in file order and shuffled), the authors' layout the long-context text of
`visible(persona, T)`, ours a prefix; and the `AskedAt` a query fills."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage
from support.v3_backend import (
    T,
    event,
    persona_folder,
    query_row,
    shape,
    write_persona,
    write_queries,
)

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.contexts import Contexts, sample_history
from inspect_personamem.datasets.v3.persona import histories
from inspect_personamem.datasets.v3.persona.histories import (
    HistoryLayout,
    PersonaContexts,
    asked_at,
)
from inspect_personamem.datasets.v3.persona.longctx import history_text
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.release.spec import APPS, AUTHORS_APPS, App

SEEDS = (None, 1, 2)
"""File order, and two shuffles."""


def contexts_at(
    tmp_path: Path,
    seed: int | None,
    layout: HistoryLayout = "authors",
    apps: Sequence[App] = AUTHORS_APPS,
) -> tuple[PersonaContexts, set[int], set[int]]:
    """The marked persona's contexts, and its event numbers before T and at or after."""
    folder, before, after = persona_folder(tmp_path, seed)
    return PersonaContexts(PersonaStreams(folder.parent), layout, apps), before, after


def text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(message.text for message in messages)


def shown_events(history: str, numbers: set[int]) -> set[int]:
    return {n for n in numbers if f"EV{n}X" in history}


def test_a_query_ends_after_the_profile_and_the_events_before_its_time(tmp_path: Path) -> None:
    contexts, before, _ = contexts_at(tmp_path, None)
    # three events of each of the authors' four apps are before T (two of them at T - 1)
    assert contexts.end_index_at("7", T) == 1 + 3 * len(AUTHORS_APPS)
    # each app has one event at T
    assert contexts.end_index_at("7", T + 1) == contexts.end_index_at("7", T) + len(AUTHORS_APPS)
    assert contexts.end_index_at("7", 0) == 1
    everything = PersonaContexts(contexts.streams, apps=APPS)
    assert everything.end_index_at("7", T) == 1 + 3 * len(APPS)


@pytest.mark.parametrize("layout", ["authors", "events"])
@pytest.mark.parametrize("seed", SEEDS)
def test_no_history_shows_the_future_or_a_leak_field(
    tmp_path: Path, layout: HistoryLayout, seed: int | None
) -> None:
    contexts, before, after = contexts_at(tmp_path, seed, layout, APPS)
    end = contexts.end_index_at("7", T)
    for shown in (text(contexts.history("7", end)), text(contexts.messages("7")[:end])):
        assert shown_events(shown, before) == before
        assert shown_events(shown, after) == set()
        assert "LEAK-" not in shown and "CAL" not in shown
        assert "KEEP-" not in shown  # the audit stays in the visible fields, not the text


def test_the_authors_layout_is_the_long_context_text_at_the_querys_time(tmp_path: Path) -> None:
    contexts, _, _ = contexts_at(tmp_path, 3)
    [message] = contexts.history("7", contexts.end_index_at("7", T))
    assert message.role == "user"
    assert message.content == history_text(contexts.streams.visible("7", T))
    # no profile first (inference_utils.py@7758d563: "DELIBERATELY NOT prepended")
    assert message.content.startswith("\n# App: instagram — ")
    assert "Ada Example" not in message.content and "LEAK-profile" not in message.content


@pytest.mark.parametrize("apps", [AUTHORS_APPS, APPS])
@pytest.mark.parametrize("seed", SEEDS)
def test_the_authors_layout_is_the_long_context_text_at_every_end(
    tmp_path: Path, seed: int | None, apps: Sequence[App]
) -> None:
    """Written from the timeline's lines, the text is `history_text` of the persona as
    read and masked, at every end a query's time can give (events of one time and DM
    entries among them); the other ends are refused."""
    contexts, _, _ = contexts_at(tmp_path, seed, "authors", apps)
    posts = contexts.streams.backend / "7" / "instagram.json"
    dm = {**event("instagram", 99, T - 1), "is_dm": True}  # tied with two posts
    posts.write_text(json.dumps([*json.loads(posts.read_text()), dm]), encoding="utf-8")
    persona = contexts.streams.persona("7")
    assert any(e.is_dm for e in persona.events)
    times = sorted({e.source_timestamp for e in persona.events})
    ends = {contexts.end_index_at("7", t): t for t in [*times, times[-1] + 1]}
    for end, t in ends.items():
        [message] = contexts.history("7", end)
        assert message.text == history_text(contexts.streams.visible("7", t), apps)
    for end in set(range(1, 2 + len(contexts.timeline("7")))) - set(ends):
        with pytest.raises(ValueError, match="falls between events of one time"):
            contexts.history("7", end)


def test_our_layout_is_the_timeline_in_blocks_and_earlier_histories_are_prefixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(histories, "BLOCK_CHARS", 1_200)  # three events a block
    contexts, _, _ = contexts_at(tmp_path, 4, "events", APPS)
    messages = contexts.messages("7")
    assert messages[0].role == "system" and "LEAK-profile" not in str(messages[0].content)
    assert all(str(m.content).startswith("[") for m in messages[1:])
    lines = [m.text for m in messages[1:]]
    ends = range(len(messages) + 1)
    sent = {end: shape(contexts.history("7", end)) for end in ends}
    starts = contexts.block_starts("7")
    whole = contexts.history("7", len(messages))[1:]
    assert 2 < len(whole) < len(lines)
    assert "\n".join(m.text for m in whole) == "\n".join(lines)
    for start, block in zip(starts, whole, strict=True):
        one = block.text.count("\n") == 0
        assert len(block.text) <= 1_200 or one  # only a line longer alone passes the bound
        assert block.text.startswith(lines[start])
    for end, history in sent.items():
        # the card, then exactly the events before the end, in time order, a line each
        assert history[:1] == shape(messages[:1][:end])
        assert [line for _, text in history[1:] for line in text.split("\n")] == lines[
            : max(end - 1, 0)
        ]
        assert all(role == "user" for role, _ in history[1:])
        complete = contexts.complete_at("7", end)
        assert complete in (len(history), len(history) - 1)
        for later in ends[end:]:  # every later history extends it
            after = sent[later]
            assert after[:complete] == history[:complete]
            if complete < len(history):
                assert after[complete][1].startswith(history[complete][1])
    # the whole timeline is every block, none of them cut
    assert contexts.complete_at("7", len(messages)) == len(sent[len(messages)]) == 1 + len(whole)
    # a history ending where a block starts has no cut block
    assert sent[1 + starts[1]] == shape((messages[0], whole[0]))
    # the whole blocks are one copy, shared by every history that sends them
    early, late = contexts.history("7", 2 + starts[1]), contexts.history("7", len(messages))
    assert early[0] is late[0] and early[1] is late[1]


def test_the_whole_blocks_of_the_last_personas_asked_for_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(histories, "BLOCK_CHARS", 1_200)
    monkeypatch.setattr(histories, "WHOLE_KEPT", 1)
    contexts, _, _ = contexts_at(tmp_path, 4, "events", APPS)
    write_persona(tmp_path / "8", {"user_id": "8"}, {})
    end = len(contexts.messages("7"))
    first = contexts.history("7", end)
    assert contexts.history("7", end)[1] is first[1]  # kept
    contexts.history("8", 1)  # another persona asked for: 7's blocks are let go
    again = contexts.history("7", end)
    assert again[1] is not first[1] and shape(again) == shape(first)


def test_a_querys_cache_breakpoints_are_where_later_histories_share_its_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(histories, "BLOCK_CHARS", 1_200)
    contexts, _, _ = contexts_at(tmp_path, 4, "events", APPS)
    starts = contexts.block_starts("7")
    own = 2 + starts[2]  # one event into the third block
    earlier = (own - 1, 1 + starts[1], 2)
    marks = contexts.cache_ends("7", own, (own, *earlier))
    # its whole history (a query of the same time shares it), its cut, and the earlier
    # queries' cuts (each once), longest first
    assert marks == [4, 3, 2, 1]
    assert [contexts.complete_at("7", end) for end in (own, *earlier)] == [3, 3, 2, 1]
    assert len(contexts.history("7", own)) == 4
    assert contexts.cache_ends("7", 1, (1,)) == [1]
    authors, _, _ = contexts_at(tmp_path / "a", 4, "authors", APPS)
    assert authors.cache_ends("7", own, (own, *earlier)) == [own, *earlier]


def test_an_end_between_events_of_one_time_is_refused_in_the_authors_layout(
    tmp_path: Path,
) -> None:
    post = {"source_timestamp": 10, "interaction_format": {}}
    apps = {"instagram": [dict(post, source_object_id=str(i)) for i in range(2)]}
    write_persona(tmp_path / "8", {"user_id": "8"}, apps)
    contexts = PersonaContexts(PersonaStreams(tmp_path))
    assert [contexts.end_index_at("8", t) for t in (10, 11)] == [1, 3]
    with pytest.raises(ValueError, match="falls between events of one time"):
        contexts.history("8", 2)
    with pytest.raises(ValueError, match="outside 0 to 3"):
        contexts.history("8", 4)
    assert contexts.history("8", 0) == ()
    timeline = PersonaContexts(contexts.streams, layout="events")
    assert [len(timeline.history("8", end)) for end in (0, 1, 2, 3)] == [0, 1, 2, 2]


def test_a_persona_without_events_is_its_profile_card_in_our_layout(tmp_path: Path) -> None:
    write_persona(tmp_path / "9", {"user_id": "9"}, {})
    timeline = PersonaContexts(PersonaStreams(tmp_path), layout="events")
    [card] = timeline.history("9", 1)
    assert card.role == "system" and timeline.complete_at("9", 1) == 1
    assert timeline.cache_ends("9", 1, (1,)) == [1]


def test_a_query_is_asked_after_its_persona_up_to_its_time(tmp_path: Path) -> None:
    contexts, before, after = contexts_at(tmp_path, None)
    iso = datetime.fromtimestamp(T, timezone.utc).isoformat()
    row = query_row(query_id="7:0003:q", user_id="7", instance_id="q", ts=str(T), ts_iso=iso)
    [query] = read_queries(write_queries(tmp_path / "benchmark" / "7", [row]))
    asked = asked_at(query, contexts)
    assert asked == AskedAt("7", contexts.end_index_at("7", T), query.query_text)
    store: Contexts = contexts
    history = text(sample_history(store, asked.metadata()))
    authors_apps = {n for n in before if f"EV{n}X" in text(contexts.messages("7"))}
    assert shown_events(history, before) == authors_apps and not shown_events(history, after)
