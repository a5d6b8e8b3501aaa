"""PersonaMem-v3 persona folders for the tests: written from Python values, and the
shared excerpts of persona 105's real files (`../shared/data/personamem_v3/`,
CC-BY-NC-4.0, from bowen-upenn/PersonaMem-v3) cut into whole JSON values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
