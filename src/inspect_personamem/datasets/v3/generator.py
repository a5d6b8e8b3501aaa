"""PersonaMem-v3-shaped persona folders, for tests, the oracle and the floor.

`generate(folder, personas=N, queries_per_type=K, seed=S)` writes, in a checkout's layout
(`spec.CHECKOUT`), per persona `backend/{uid}/` with every file the release has there
(`profile.json` with its 21 keys, hidden ones included; the five apps' event lists;
`calendar.json`; `trending.json`; `ai_studio_memory.json` and `persona.html`, which the
readers pass by) and `benchmark/{uid}/queries.csv` (the version line, the 17 columns, CRLF
line ends) with `build_audit.json`. With `layout="hub"` it writes the hub's layout
(`spec.HUB`) instead: `backend/{uid}/` with the files the export script copies there
(`spec.HUB_FILES` and `persona.html`: no trending, no memory file) and the same queries
as `test.json`, one item per row in the shape `testjson` reads (`hub_item`).
Every file is marked as generated (`data.provenance`), so a run on it is labelled
`synthetic: ...` and never taken for the release. The same seed writes the same bytes.
By default a persona's background is a few events a day; `history_tokens=N` grows it,
once the queries are built, until the long-context history averages N tokens at the
queries' times (`synthetic.size`; the release's ≈416k at ~220 queries: K = 7).

This module is the driver; the persona itself is built in `synthetic/`: its world (time
structure, interests, streams, calendar: `synthetic.world`; profile and trending:
`synthetic.profile`), then each of the 31 task types' `K` queries, in `TASK_TYPES`'
order, by the type's instance builder (`TaskType.instance`: a function named after the
type in its family's module of `synthetic/`; what an instance holds: `synthetic.instance`).
Here each query becomes its row: the instance (with the query's ground-truth slice and
its evidence and decoys) as `instance_json`, the cells its builder set, in time order.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_personamem.data.provenance import mark_generated
from inspect_personamem.datasets.v3.release.records import COLUMNS, VERSION_LINE
from inspect_personamem.datasets.v3.release.spec import (
    CHECKOUT,
    GITHUB_PERSONAS,
    HUB,
    Layout,
    LayoutName,
    V3Folder,
    check_folder,
)
from inspect_personamem.datasets.v3.synthetic.instance import Built
from inspect_personamem.datasets.v3.synthetic.profile import (
    page_of,
    profile_of,
    studio_memory_of,
    trending_of,
)
from inspect_personamem.datasets.v3.synthetic.size import fill
from inspect_personamem.datasets.v3.synthetic.world import World, iso
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES, TaskTypes


def write_persona(
    folder: Path,
    profile: Mapping[str, Any],
    apps: dict[str, list[Any]],
    calendar: list[Any] | None = None,
    trending: Mapping[str, Any] | None = None,
) -> Path:
    """`folder` holding a persona's files: the profile, each app's events (each of the
    four required apps an empty list unless given), `calendar.json` and `trending.json`
    only when given."""
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


def write_queries(
    folder: Path,
    rows: Sequence[Mapping[str, Any]],
    *,
    first: str = VERSION_LINE,
    columns: Sequence[str] = COLUMNS,
) -> Path:
    """`folder/queries.csv` holding `rows` after the line `first`, with the header of
    `columns` (keys not among them ignored), CRLF line ends, as the released file
    appears to have them."""
    text = io.StringIO()
    writer = csv.DictWriter(text, columns, extrasaction="ignore", lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "queries.csv"
    path.write_text(first + "\r\n" + text.getvalue(), encoding="utf-8", newline="")
    return path


def hub_item(row: Mapping[str, Any]) -> dict[str, Any]:
    """A `queries.csv` row as the hub's `test.json` holds it: the keys every item has
    (`data_preparation/visualize.py::dump_test_samples_json`, `testjson`), the instance
    as `instance_full`, the gold and inferior replies and ground truth beside it for
    reviewers, `rubric_tags` a list; no `user_id`, `seq` or registry columns."""
    instance = json.loads(row["instance_json"])
    return {
        "query_id": row["query_id"],
        "task_family": row["task_family"],
        "task_type": row["task_type"],
        "ts": int(row["ts"]),
        "ts_iso": row["ts_iso"],
        "user_query": row["query_text"] or None,
        "prior_conversation": instance.get("prior_conversation") or None,
        "example_response": instance.get("example_response", ""),
        "groundtruth_preference": instance.get("groundtruth_preference", ""),
        "inferior_response": instance.get("inferior_response"),
        "rubric_tags": row["rubric_tags"].split(";") if row["rubric_tags"] else [],
        "instance_full": instance,
    }


def generate(
    folder: Path,
    *,
    personas: int = 2,
    queries_per_type: int = 1,
    seed: int = 0,
    layout: LayoutName = "checkout",
    task_types: TaskTypes = TASK_TYPES,
    history_tokens: int | None = None,
) -> V3Folder:
    """Write `personas` synthetic personas into `folder` in `layout` (a checkout's or the
    hub's) with `queries_per_type` queries of each task type each (the 31 by default, each
    by its `instance` builder); every file marked as generated. With `history_tokens`,
    each persona's background grows until its queries' long-context history averages
    that many tokens at their times (`synthetic.size`; the release's is ≈416k); without
    it, a few background events a day. Returns the folder as `spec.check_folder` reads it."""
    if personas < 1 or queries_per_type < 1:
        raise ValueError("personas and queries_per_type must be at least 1")
    if history_tokens is not None and history_tokens < 1:
        raise ValueError("history_tokens must be at least 1 where given")
    rng = random.Random(seed)
    pool = [uid for uid in range(9000, 10000) if str(uid) not in GITHUB_PERSONAS]
    uids = sorted(rng.sample(pool, personas))
    for uid in uids:
        world = World(random.Random(f"{seed}:{uid}"), str(uid), queries_per_type)
        target = HUB if layout == "hub" else CHECKOUT
        for path in _write(world, folder, target, task_types, history_tokens):
            mark_generated(folder, path, __name__)
    return check_folder(folder, given_by="generate()")


def _write(
    world: World,
    root: Path,
    layout: Layout,
    task_types: TaskTypes,
    history_tokens: int | None,
) -> list[Path]:
    """Build the persona (its background, then each type's queries in turn, then, with
    `history_tokens`, the background that brings it to that size) and write its files in
    `layout`; return them."""
    world.background()
    built: list[tuple[str, Built]] = []
    for task, task_type in task_types.items():
        made = task_type.instance(world)
        assert len(made) == world.k, task
        built.extend((task, one) for one in made)
    if history_tokens is not None:
        fill(world, [one.query.t for _, one in built], history_tokens)
    built.sort(key=lambda pair: (pair[1].query.t, pair[1].query.iid))
    rows = [_row(world.uid, seq, task, one) for seq, (task, one) in enumerate(built)]
    for events in world.events.values():
        events.sort(key=lambda e: e["source_timestamp"])
    world.calendar.sort(key=lambda m: m["ts"])
    return _checkout(world, root, rows) if layout is CHECKOUT else _hub(world, root, rows)


def _row(uid: str, seq: int, task: str, built: Built) -> dict[str, Any]:
    """A query's row: its instance as its builder made it (the real rows' keys, by
    type), with where its evidence and decoys lie, and the cells its builder set."""
    q, fields, cells = built.query, built.fields, built.cells
    iid = q.iid
    instance = {
        **fields,
        "_generated_evidence": q.evidence,
        "_generated_decoys": q.decoys,
    }
    shown = instance.get("user_query") or instance.get("query") or ""
    return {
        "query_id": f"{uid}:{seq:04d}:{iid}",
        "seq": seq,
        "user_id": uid,
        "task_family": cells.family,
        "task_type": task,
        "instance_id": iid,
        "ts": q.t,
        "ts_iso": iso(q.t),
        "query_text": shown,
        "app_context": cells.app,
        "entry_point": cells.entry,
        "mcp_tools_allowed": cells.tools,
        "state_write_policy": cells.policy,
        "expected_response_kind": cells.kind,
        "rubric_tags": ";".join(cells.tags),
        "display_rubric": cells.rubric,
        "instance_json": json.dumps(instance, ensure_ascii=False),
    }


def _checkout(world: World, root: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """The checkout's files of the persona: every backend file, the queries as
    `queries.csv` with `build_audit.json`."""
    backend = root / CHECKOUT.persona_folder(world.uid)
    write_persona(backend, profile_of(world), world.events, world.calendar, trending_of(world))
    memory = studio_memory_of(world)
    (backend / "ai_studio_memory.json").write_text(json.dumps(memory), encoding="utf-8")
    (backend / "persona.html").write_text(page_of(world), encoding="utf-8")
    bench = (root / CHECKOUT.queries_file(world.uid)).parent
    write_queries(bench, rows)
    audit = {"user_id": world.uid, "by_task": {}, "drop_examples": {}}
    (bench / "build_audit.json").write_text(json.dumps(audit, indent=2), encoding="utf-8")
    return sorted([*backend.iterdir(), *bench.iterdir()])


def _hub(world: World, root: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """The hub's files of the persona: no trending or memory file, the queries as
    `test.json` beside the rest."""
    backend = root / HUB.persona_folder(world.uid)
    write_persona(backend, profile_of(world), world.events, world.calendar)
    (backend / "persona.html").write_text(page_of(world), encoding="utf-8")
    items = [hub_item(row) for row in rows]
    text = json.dumps(items, indent=2, ensure_ascii=False)
    (root / HUB.queries_file(world.uid)).write_text(text, encoding="utf-8")
    return sorted(backend.iterdir())
