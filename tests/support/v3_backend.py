"""PersonaMem-v3 persona folders for the tests: written from Python values, and the
shared excerpts of persona 105's real files (`../shared/data/personamem_v3/`,
CC-BY-NC-4.0, from bowen-upenn/PersonaMem-v3) cut into whole JSON values."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from inspect_personamem.datasets.v3.records import COLUMNS, VERSION_LINE
from support.helpers import SHARED_DATA, require

V3_EXCERPTS = SHARED_DATA / "personamem_v3"


def write_persona(
    folder: Path,
    profile: dict[str, Any],
    apps: dict[str, list[Any]],
    calendar: list[Any] | None = None,
    trending: dict[str, Any] | None = None,
) -> Path:
    """`folder` holding a persona's files; each of the four required apps empty unless
    given; calendar and trending only when given."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profile.json").write_text(json.dumps(profile), encoding="utf-8")
    for app in ("instagram", "facebook", "threads", "chatbot"):
        apps.setdefault(app, [])
    for app, events in apps.items():
        (folder / f"{app}.json").write_text(json.dumps(events), encoding="utf-8")
    if calendar is not None:
        text = json.dumps({"modifications": calendar})
        (folder / "calendar.json").write_text(text, encoding="utf-8")
    if trending is not None:
        (folder / "trending.json").write_text(json.dumps(trending), encoding="utf-8")
    return folder


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


def write_queries(
    folder: Path,
    rows: list[dict[str, str]],
    *,
    first: str = VERSION_LINE,
    columns: tuple[str, ...] = COLUMNS,
) -> Path:
    """`folder/queries.csv` holding `rows` after the version line `first`, CRLF line ends
    as the released file appears to have."""
    text = io.StringIO()
    writer = csv.DictWriter(text, columns, extrasaction="ignore", lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "queries.csv"
    path.write_text(first + "\r\n" + text.getvalue(), encoding="utf-8", newline="")
    return path
