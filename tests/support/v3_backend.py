"""PersonaMem-v3 persona folders for the tests: written from Python values (by the
generator's writers, `write_persona` and `write_queries`, so that one piece of code writes
the files), and the shared excerpts of persona 105's real files
(`../shared/data/personamem_v3/`, CC-BY-NC-4.0, from bowen-upenn/PersonaMem-v3) cut into
whole JSON values."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, get_model

from inspect_personamem.datasets.v3.generator import write_persona as write_persona
from inspect_personamem.datasets.v3.generator import write_queries as write_queries
from inspect_personamem.datasets.v3.persona.streams import Event, Persona, PersonaStreams
from inspect_personamem.datasets.v3.prompts.shown import Prompt, Shown
from inspect_personamem.datasets.v3.release.records import V3Query
from inspect_personamem.datasets.v3.release.spec import APPS, AUTHORS_APPS, V3Folder
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.task_types.samples import query_prompt
from support.helpers import SHARED_DATA, require, run_task

V3_EXCERPTS = SHARED_DATA / "personamem_v3"


def excerpt_values(name: str) -> list[Any]:
    """The whole JSON values in an excerpt file's verbatim sections, in order: each
    section is one released item (an event, a calendar modification, a hashtag), cut
    from a longer list; a section's opening `[` or `{"modifications": [` and the comma
    after the item are the file's, not the item's, and are skipped. Skips the test
    where ../shared is absent."""
    text = require(V3_EXCERPTS / name).read_text(encoding="utf-8")
    body = text.split("=== VERBATIM", 1)[1].split("=== VERBATIM END ===", 1)[0]
    values = []
    for section in body.split("\n==="):
        start = section.find("\n") + 1  # past the section's marker line
        chunk = section[start:].lstrip()
        if chunk.startswith("["):
            chunk = chunk[1:].lstrip()
        if chunk.startswith("{") and '"modifications": [' in chunk.split("\n", 2)[1]:
            chunk = chunk.split("[", 1)[1].lstrip()
        if chunk.startswith("{") and '"built_at"' in chunk.split("\n", 2)[1]:
            chunk = chunk.split('"hashtags": [', 1)[1].lstrip()
        value, _ = json.JSONDecoder().raw_decode(chunk)
        values.append(value)
    return values


def query_row(**changes: str) -> dict[str, str]:
    """A valid row (modelled on persona 105's row seq 3, cut short), with `changes`."""
    cells = {
        "query_id": "105:0003:recsys_2026-04-04_a5",
        "seq": "3",
        "user_id": "105",
        "task_family": "e_followup",
        "task_type": "personalized_recommendation",
        "instance_id": "recsys_2026-04-04_a5",
        "ts": "1775332800",
        "ts_iso": "2026-04-04T20:00:00+00:00",
        "query_text": "[system prompt] Rank the candidate slate for this user.",
        "app_context": "",
        "entry_point": "chatbot_routed",
        "mcp_tools_allowed": "none",
        "state_write_policy": "read_only",
        "expected_response_kind": "ranking",
        "rubric_tags": "recall@5;ndcg_at_k;mrr",
        "display_rubric": "(+) Top-1 must be the held-out item.;(-) Hard negatives last.",
        "instance_json": json.dumps({"held_out_idx": 9, "candidates": []}),
    }
    cells.update(changes)
    return cells


# --- a persona marked for the time-mask tests ---------------------------------------

STRIPPED_PREFERENCE = (
    "split",
    "over_personalization_irrelevant",
    "update_history",
    "confidence_score_init",
    "confidence_cross_referenced",
    "stereotype_mark",
    "hidden_persona_labels",
)
"""`_LEAK_FIELDS_PREF` of evaluation/backend_query.py@00c8a9f0, copied here so that a
field dropped from the module's list is still checked (event level: `split`)."""
T = 1_775_300_000
OFFSETS = (-86_400, -1, 0, 1, 3_600)
"""Event times around the query time T: before, just before, at, just after, after."""


def leak(field: str, key: str) -> Any:
    """A stripped field's value carrying the marker `LEAK-{field}-{key}`."""
    marker = f"LEAK-{field}-{key}"
    if field in ("hidden_persona_labels",):
        return [marker]
    if field in ("update_history", "over_personalization_irrelevant"):
        return [{"note": marker}]
    return marker


def event(app: str, n: int, ts: int) -> dict[str, Any]:
    """An event whose every shown text carries `EV{n}X`, and every leak field a marker."""
    mark = f"EV{n}X"
    preference: dict[str, Any] = {"persona_item": f"{mark} item", "category": f"{mark} cat"}
    preference |= {field: leak(field, mark) for field in STRIPPED_PREFERENCE}
    preference["motivation_audit"] = {"decision": f"KEEP-{mark}"}
    return {
        "source_object_id": str(1000 + n),
        "source_timestamp": ts,
        "formatted_timestamp": f"{mark} when",
        "source_hashtags": [f"#{mark}"],
        "source_interaction_type": "explicit_positive",
        "interaction_format": {"app": app, "action_label": f"{mark} did", "user_message": mark},
        "content_type": "image",
        "content": {"title": f"{mark} title", "caption": mark, "overall_description": mark},
        "conversation": [{"role": "user", "content": f"{mark} said"}],
        "preferences": [preference],
        "split": leak("split", mark),
    }


PROFILE: dict[str, Any] = {
    "user_id": "7",
    "name": "Ada Example",
    "bio": "a bio",
    "big_five": {"openness": "high"},
    "hidden_personas": [{"label": "LEAK-profile-hidden"}],
    "preferences": [{"persona_item": "LEAK-profile-preferences"}],
    "friends": [{"display_name": "LEAK-profile-friends"}],
    "proactive_trigger_candidates": {"close_friend_update": "LEAK-profile-proactive"},
    "user_voice": {"idiolect": "LEAK-profile-voice"},
}


def persona_folder(tmp_path: Path, seed: int | None) -> tuple[Path, set[int], set[int]]:
    """A persona with events of every app around T (two per app at T - 1, so that ties
    are in the file), a calendar change at each offset; shuffled by `seed` unless None.
    Returns the folder and the event numbers before T and at or after it."""
    shuffle = random.Random(seed).shuffle if seed is not None else (lambda items: None)
    before: set[int] = set()
    after: set[int] = set()
    apps: dict[str, list[Any]] = {}
    n = 0
    for app in APPS:
        items = []
        for offset in (*OFFSETS, -1):
            n += 1
            items.append(event(app, n, T + offset))
            (before if offset < 0 else after).add(n)
        shuffle(items)
        apps[app] = items
    calendar = [
        {"mod_id": f"mod_{i}", "ts": T + offset, "action": "added", "entry": {"title": f"CAL{i}X"}}
        for i, offset in enumerate(OFFSETS)
    ]
    shuffle(calendar)
    return write_persona(tmp_path / "7", PROFILE, apps, calendar), before, after


def bare_persona(user_id: str) -> Persona:
    """A persona with a profile and no event (for a row whose scorer reads none)."""
    return Persona(user_id, {"user_id": user_id}, (), (), ())


def shape(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    """Each message's role and text: what a history sends (its messages are made anew for
    each query, each with an id of its own)."""
    return [(message.role, message.text) for message in messages]


def timeline_events(
    streams: PersonaStreams, user_id: str, apps: Sequence[str] = AUTHORS_APPS
) -> list[Event]:
    """The persona's events a history of `apps` shows (DMs left out), as read: what the
    timeline (`PersonaContexts.timeline`) keeps a line of, in its order."""
    return [e for e in streams.persona(user_id).events if e.app in apps and not e.is_dm]


def checkout_streams(path: Path) -> PersonaStreams:
    """The personas of the checkout of the query file `path` (`benchmark/{uid}/queries.csv`
    beside `backend/`), each read once: a test that reads many queries of one folder
    shares one (reading a persona's files again for each query costs more than the test)."""
    return PersonaStreams(path.parent.parent.parent / "backend")


def built_prompt(
    query: V3Query, path: Path, streams: PersonaStreams | None = None
) -> tuple[Shown, Prompt]:
    """`query`'s prompt as its sample has it (its ground-truth block included) and the
    fields it read, its persona read from `streams`, else from the checkout of `path`
    (`checkout_streams`)."""
    if streams is None:
        streams = checkout_streams(path)
    return query_prompt(query, streams, path, TASK_TYPES[query.task_type].prompt)


def prompt_text(query: V3Query, path: Path, streams: PersonaStreams | None = None) -> str:
    """`query`'s prompt text as its sample has it (`built_prompt`)."""
    return built_prompt(query, path, streams)[1].text


def proactive_oracle_run(written: V3Folder, logs: Path, **settings: str) -> EvalLog:
    """The proactive family of `written`'s first persona answered by the always-right
    oracle (`personamem/oracle -M accuracy=1.0`), bound as the grader too, under
    `settings` (the task's other arguments)."""
    oracle = get_model(
        "personamem/oracle",
        questions=str(written.queries_file(written.personas[0])),
        accuracy=1.0,
    )
    return run_task(
        "inspect_personamem/personamem_v3",
        oracle,
        logs,
        {"data_dir": str(written.root), "family": "agentic_proactiveness", **settings},
        model_roles={"grader": oracle},
    )
