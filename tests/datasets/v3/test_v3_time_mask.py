"""The time mask in every setting (issue 38, item 2): over a generated folder whose every
event carries a marker, each history setting runs end to end under `inspect eval`, in
the default order and shuffled by Inspect; in every model call of every sample (the
answer's prompt, the tool results it read back, the Markdown memory writer's prompts)
no event at or after the query's time appears, nor any field the authors strip, the
profile's hidden keys, or a scorer-only field (the agentic ground-truth block included).

The markers: event k of the folder carries the hashtag `#EVM{k}X` (shown in every
rendering of an event) and each of its stripped fields `LEAK...` (`v3_backend.leak`);
the profile a hidden key `PROFILEHIDDENX`; every query's instance a scorer-only note
(`notes`, `_probe`) `SECRET{n}X`. The scripted model copies every event marker it is
shown into the memory it writes, so a memory that ran ahead would carry the future into
later prompts.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import shutil
import zlib
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessage
from inspect_ai.tool import ToolChoice, ToolInfo
from support.helpers import mock_model, run_task, tool_calling_model
from support.memories import RecordingMemory, tiny_sentence_transformer
from support.servers.mcp_memory import stand_in_config
from support.servers.openai_api import mem0_stand_in_config, serve_openai
from support.v3_backend import STRIPPED_PREFERENCE, leak, write_queries

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.provenance import MARK, mark_generated
from inspect_personamem.datasets.v3.agent.catalogue import (
    READ_TOOLS,
    TOOLS,
    WRITE_TOOLS,
)
from inspect_personamem.datasets.v3.agent.setting import ACCESS_MCP, OVERPERS_RAIL
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.prompts.shown import SCORER_KEY
from inspect_personamem.datasets.v3.release.records import COLUMNS, read_queries
from inspect_personamem.datasets.v3.release.spec import APPS, AUTHORS_APPS, V3Folder, check_folder
from inspect_personamem.datasets.v3.version import MARKDOWN_MEMORY
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.run.tasks import personamem_v3

TASK = "inspect_personamem/personamem_v3"
GRADER = "grader"
EVENT = re.compile(r"EVM(\d+)X")
HIDDEN = re.compile(r"LEAK-|PROFILEHIDDENX|SECRET\d+X")
REPLY = json.dumps({"ranked_indices": list(range(16)), "response": "a reply " * 10})
NEW_ACTIVITY = "## New activity (chronological, time-masked)"

SETTINGS: dict[str, dict[str, Any]] = {
    "none": {"history": "none"},
    "full-authors": {"history": "full"},
    "full-events": {"history": "full", "history_layout": "events"},
    "evidence": {"history": "evidence"},
    "rag-bm25": {"history": "rag", "retriever": "bm25", "top_k": 8},
    "rag-dense": {"history": "rag", "top_k": 8, "embedding_cache": "none"},  # a tiny model
    "memory-plugin": {"history": "memory", "memory": "support.memories:RecordingMemory"},
    "memory-markdown": {"history": "memory", "memory": MARKDOWN_MEMORY},
    "memory-mcp": {"history": "memory", "memory": "mcp", "top_k": 8},  # the stand-in server
    "memory-mem0": {"history": "memory", "memory": "mem0", "top_k": 8},  # a stand-in LLM
    "tools-bm25": {
        "history": "tools",
        "tool_budget": 4,
        "tool_result_chars": 200_000,
    },
    "tools-markdown": {
        "history": "tools",
        "search": "memory",
        "memory": MARKDOWN_MEMORY,
        "tool_budget": 4,
        "tool_result_chars": 200_000,
    },
    "apps": {"history": "apps"},  # the persona's apps, in process (`apps_script`)
    "apps-mcp": {"history": "apps", "apps_transport": "mcp"},  # the same over stdio, a few queries
}
APPS_SETTINGS = {"apps", "apps-mcp"}
SEES_ALL = {"full-authors", "full-events", "memory-markdown", "tools-bm25"}
"""Settings that show every event before the query's time (the writer copies them all;
the scripted model reads the whole history through the tools)."""
NEEDS_MEMORY = {"rag-dense", "memory-mcp", "memory-mem0", "apps-mcp"}
"""Settings that need the memory extra."""
SHOWS_NO_EVENT = {"none", "memory-plugin"}
"""Settings whose model sees no event text but an agentic ground-truth block's (the
plug-in answers `held N`)."""


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> tuple[V3Folder, dict[int, int]]:
    """A generated folder with every event, leak field, hidden profile key and scorer-only
    note marked (still marked as generated), and each event marker's time."""
    folder = generate(tmp_path_factory.mktemp("v3"), personas=2, queries_per_type=1, seed=11)
    times: dict[int, int] = {}
    for uid in folder.personas:
        backend = folder.root / "backend" / uid
        for app in APPS:
            path = backend / f"{app}.json"
            events = json.loads(path.read_text(encoding="utf-8"))
            FUTURE["ids"] += [str(e["source_object_id"]) for e in (events[:1] + events[-2:])]
            FUTURE["threads"] += [
                str(e.get("thread_id") or f"__solo__{e['source_object_id']}")
                for e in events
                if e.get("is_dm")
            ][-2:]
            for event in events:
                k = len(times)
                FUTURE["tags"].insert(0, f"EVM{k}X")
                times[k] = event["source_timestamp"]
                event["source_hashtags"] = [*event.get("source_hashtags", []), f"#EVM{k}X"]
                event["split"] = leak("split", str(k))
                for preference in event.get("preferences", []):
                    preference |= {field: leak(field, str(k)) for field in STRIPPED_PREFERENCE}
            _rewrite(folder.root, path, json.dumps(events))
        profile_path = backend / "profile.json"
        profile = json.loads(profile_path.read_text(encoding="utf-8"))
        _rewrite(folder.root, profile_path, json.dumps({**profile, "secret": "PROFILEHIDDENX"}))
        queries = folder.root / "benchmark" / uid / "queries.csv"
        rows = _rows(queries)
        for n, row in enumerate(rows):
            instance = json.loads(row["instance_json"])
            instance |= {"notes": f"SECRET{n}X", "_probe": [f"SECRET{n}X"]}
            row["instance_json"] = json.dumps(instance)
        write_queries(queries.parent, rows, columns=COLUMNS)
        mark_generated(folder.root, queries, __name__)
    return folder, times


@pytest.fixture(scope="module")
def few(
    marked: tuple[V3Folder, dict[int, int]], tmp_path_factory: pytest.TempPathFactory
) -> V3Folder:
    """`marked` with a few queries a persona: its first and last, and its
    `agentic_send_post` (a write that posts, read back): the MCP setting's, which starts
    a server process per query. That its text is the in-process text, call for call, is
    `test_v3_app_server`'s."""
    folder, _ = marked
    root = tmp_path_factory.mktemp("v3few")
    shutil.copytree(folder.root, root, dirs_exist_ok=True)
    for uid in folder.personas:
        queries = root / "benchmark" / uid / "queries.csv"
        rows = sorted(_rows(queries), key=lambda row: int(row["ts"]))
        posts = [row for row in rows if row["task_type"] == "agentic_send_post"]
        write_queries(queries.parent, [rows[0], rows[-1], posts[0]], columns=COLUMNS)
        mark_generated(root, queries, __name__)
    return check_folder(root)


def _rows(queries: Path) -> list[dict[str, str]]:
    with queries.open(encoding="utf-8", newline="") as file:
        next(file)  # the version line
        return list(csv.DictReader(file))


def _rewrite(root: Path, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    mark_generated(root, path, __name__)


def script(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice) -> Any:
    """The one model of a run: as the memory writer, a memory of every event marker it
    is shown (in the memory so far and the new activity); as the answerer with tools,
    first every tool that reads the history (the whole of it, and a search), then a
    reply; else a reply."""
    text = "\n".join(message.text for message in messages)
    if NEW_ACTIVITY in text:
        seen = sorted(set(EVENT.findall(text)), key=int)
        bullets = "\n".join(f"- seen EVM{k}X" for k in seen)
        return f"<memory>\n# USER MEMORY\n{bullets}\n</memory>\n<summary>so far</summary>"
    names = {tool.name for tool in tools}
    if "instagram_get_feed" in names:
        return apps_script(messages, names)
    if "read_history" in names and not any(m.role == "tool" for m in messages):
        [read] = [tool for tool in tools if tool.name == "read_history"]
        end = int(re.findall(r"has (\d+) messages", read.description or "")[0])
        return [
            ("read_history", {"first": 0, "last": max(0, end - 1)}),
            ("search_history", {"query": "EVM event"}),
        ]
    return REPLY


FUTURE: dict[str, list[str]] = {"ids": [], "tags": [], "threads": []}
"""What the apps script asks for beyond the defaults, set by `marked`: every persona's
first and last post ids, thread ids and hashtags of each app (the last ones at or after
most queries' time)."""
WRITTEN = re.compile(r"WRITTEN(\d+)X")


def written(prompt: str) -> str:
    """The marker a query's write carries: its prompt's CRC."""
    return f"WRITTEN{zlib.crc32(prompt.encode())}X"


def apps_script(messages: list[ChatMessage], names: set[str]) -> Any:
    """The answerer over the apps: first every read tool offered, once (`read_call`);
    then one write it is offered, carrying its query's marker (`written`); then the
    feeds again (which show that write); then a reply. Every argument shape of every
    read tool, at times across a persona's history, is `test_v3_apps`' sweep, on the
    session without an eval."""
    turns = sum(m.role == "assistant" for m in messages)
    prompt = messages[0].text.removeprefix(ACCESS_MCP + OVERPERS_RAIL)
    if turns == 0:
        return [read_call(name) for name in sorted(names & READ_TOOLS)]
    writes = sorted(names & WRITE_TOOLS)
    if turns == 1 and writes:
        return [(writes[0], write_arguments(writes[0], written(prompt)))]
    if turns in (1, 2):
        return [(name, {"limit": 100_000}) for name in sorted(names) if name.endswith("_get_feed")]
    return REPLY


def read_call(name: str) -> tuple[str, dict[str, Any]]:
    """A call of a read tool asking for the whole and for the future: every argument it
    takes set, a page of everything, a hashtag, a post and a thread from the future."""
    values: dict[str, Any] = {
        "limit": 100_000,
        "query": FUTURE["tags"][0],
        "search_type": "hashtag",
        "post_id": FUTURE["ids"][-1],
        "thread_id": (FUTURE["threads"] or ["x"])[-1],
        "target_app": "instagram",
        "window_hours": 100_000,
    }
    return name, {p.name: values[p.name] for p in TOOLS[name].params if p.name in values}


def write_arguments(name: str, marker: str) -> dict[str, Any]:
    """A write tool's arguments, each text its query's marker."""
    fill = {"target_app": "instagram", "reaction": "like", "post_id": (FUTURE["ids"] or ["x"])[0]}
    return {p.name: fill.get(p.name, marker) for p in TOOLS[name].params if p.required}


def model_inputs(sample: Any) -> list[str]:
    """Every model call's input in a sample but the grader's, one text a call (tool results
    and the memory writer's included). The grader may read what the authors' scorers read
    (the gold, the slice after T); `test_v3_version` checks what it is sent."""
    return [
        "\n".join(message.text for message in event.input)
        for event in resolve_sample_attachments(sample).events
        if event.event == "model" and event.role != GRADER
    ]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tiny_sentence_transformer(tmp_path_factory.mktemp("st")))


def run(
    folder: V3Folder, log_dir: Path, setting: str, shuffle: int | None, embedder: str | None
) -> EvalLog:
    RecordingMemory.texts.clear()
    arguments = {"data_dir": str(folder.root), **SETTINGS[setting]}
    if embedder is not None:
        arguments["embedder"] = embedder
    extra: dict[str, Any] = {} if shuffle is None else {"sample_shuffle": shuffle}
    if setting == "apps-mcp":  # a server process per query: a few at a time
        extra["max_samples"] = 4
    config = log_dir / "memory.json"
    with contextlib.ExitStack() as stack:
        if setting == "memory-mcp":
            (log_dir / "mcp-records").mkdir()
            config.write_text(json.dumps(stand_in_config(log_dir / "mcp-records")))
            arguments["memory_config"] = str(config)
        if setting == "memory-mem0":  # its facts are the lines it is given, as they are
            url, _ = stack.enter_context(serve_openai())
            config.write_text(json.dumps({**mem0_stand_in_config(url), "add_batch": 40}))
            arguments["memory_config"] = str(config)
        grader = mock_model(lambda messages: "{}", f"mockllm/{GRADER}")  # unread: unscored
        return run_task(
            TASK,
            tool_calling_model(script),
            log_dir,
            arguments,
            model_roles={GRADER: grader},
            **extra,
        )


@pytest.mark.slow  # each a run of the task over a generated split, 62 queries (MCP: 6)
@pytest.mark.parametrize(
    "shuffle", [pytest.param(None, id="default"), pytest.param(7, id="shuffled")]
)
@pytest.mark.parametrize(
    "setting",
    [pytest.param(s, marks=pytest.mark.memory) if s in NEEDS_MEMORY else s for s in SETTINGS],
)
def test_no_event_at_or_after_the_query_and_no_hidden_field_reaches_any_model_call(
    marked: tuple[V3Folder, dict[int, int]],
    tmp_path: Path,
    setting: str,
    shuffle: int | None,
    request: pytest.FixtureRequest,
) -> None:
    folder, times = marked
    if setting == "apps-mcp":
        folder = request.getfixturevalue("few")
    embedder = request.getfixturevalue("tiny_model") if setting == "rag-dense" else None
    log = run(folder, tmp_path, setting, shuffle, embedder)
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == (2 * 3 if setting == "apps-mcp" else 2 * 31)
    if shuffle is not None and SETTINGS[setting]["history"] == "memory":
        # out of each persona's time order: a memory that had run ahead was rebuilt
        assert any(s.metadata["memory"]["rebuilt"] for s in log.samples)
    shown_any = 0
    writes = 0
    for sample in log.samples:
        t = int(sample.metadata["ts"])
        uid = str(sample.metadata["user_id"])
        inputs = model_inputs(sample)
        assert inputs, sample.id
        text = "\n".join(inputs)
        shown = {int(k) for k in EVENT.findall(text)}
        future = {k for k in shown if times[k] >= t}
        assert not future, (sample.id, sorted(future)[:5])
        assert not HIDDEN.search(text), (sample.id, HIDDEN.search(text))
        if setting in APPS_SETTINGS:  # its own write, read back, and no other query's
            marker = written(str(sample.input))
            assert set(WRITTEN.findall(text)) <= {marker[len("WRITTEN") : -1]}, sample.id
            made = sample.metadata["actions"]["writes"]
            writes += bool(made)
            if made and made[0]["tool"].endswith("create_post"):
                results = [m for m in sample.messages if m.role == "tool"]
                first = next(i for i, m in enumerate(results) if m.function in WRITE_TOOLS)
                assert any(marker in m.text for m in results[first + 1 :]), sample.id
        gold = sample.metadata[SCORER_KEY].get("example_response")
        if isinstance(gold, str) and len(gold) > 20:
            assert gold not in text, sample.id
        writes += sum(NEW_ACTIVITY in one for one in inputs)
        # the agentic ground-truth block shows events in every setting (its markers are
        # checked above; `test_v3_ground_truth` plants its own); the rest is the setting's
        shown_any += bool(shown) and not sample.metadata["ground_truth_block"]
        if setting in SEES_ALL:  # every event of the persona before T is there
            own = _events_of(folder, uid)
            assert {k for k in own if times[k] < t} <= shown, sample.id
    assert (shown_any > 0) == (setting not in SHOWS_NO_EVENT)
    assert (writes > 0) == (setting.endswith("markdown") or setting in APPS_SETTINGS)
    if setting == "memory-plugin":  # it was fed the events, without their hidden fields
        fed = "\n".join(RecordingMemory.texts)
        assert EVENT.search(fed) and not HIDDEN.search(fed)


def _events_of(folder: V3Folder, uid: str) -> set[int]:
    """The marker numbers of a persona's events in its history (the authors' four apps),
    its DM events left out as the authors' `get_events(include_dms=False)` leaves them
    (backend_query.py@af993eb8; the apps' DM tools and the agentic ground-truth block
    show them)."""
    backend = folder.root / "backend" / uid
    return {
        int(k)
        for app in AUTHORS_APPS
        for event in json.loads((backend / f"{app}.json").read_text(encoding="utf-8"))
        if not event.get("is_dm")
        for k in EVENT.findall(json.dumps(event))
    }


def test_evidence_is_refused_on_data_not_generated(
    marked: tuple[V3Folder, dict[int, int]], tmp_path: Path
) -> None:
    folder, _ = marked
    copy = tmp_path / "copy"
    shutil.copytree(folder.root, copy)
    (copy / MARK).unlink()  # no longer known as generated: taken for the release
    personamem_v3(data_dir=str(copy), history="full")
    with pytest.raises(PersonaMemArgumentError, match="only on generated data") as raised:
        personamem_v3(data_dir=str(copy), history="evidence")
    assert "\n" not in str(raised.value)


def test_a_personas_queries_are_sent_in_time_order_by_default(
    marked: tuple[V3Folder, dict[int, int]],
) -> None:
    folder, _ = marked

    def times(order: str | None) -> dict[str, list[int]]:
        given: dict[str, Any] = {"order": order} if order else {}
        task = personamem_v3(data_dir=str(folder.root), **given)
        by_persona: dict[str, list[int]] = {}
        for sample in task.dataset:
            metadata = sample.metadata or {}
            by_persona.setdefault(str(metadata["user_id"]), []).append(int(metadata["ts"]))
        return by_persona

    default = times(None)
    assert len(default) == 2 and all(len(ts) == 31 for ts in default.values())
    assert all(ts == sorted(ts) for ts in default.values())
    assert times("grouped") == default  # the same per-persona order, personas one after the other
    assert any(ts != sorted(ts) for ts in times("random").values())


def test_a_row_without_a_user_message_is_searched_with_its_prompt(
    marked: tuple[V3Folder, dict[int, int]],
) -> None:
    folder, _ = marked
    texts = {
        row.query_id: row.query_text
        for uid in folder.personas
        for row in read_queries(folder.queries_file(uid))
    }
    kinds = set()
    for sample in personamem_v3(data_dir=str(folder.root), history="rag", retriever="bm25").dataset:
        text = texts[str(sample.id)]
        kinds.add(bool(text.strip()))
        expected = text if text.strip() else sample.input
        assert AskedAt.of(sample.metadata or {}).message == expected, sample.id
    assert kinds == {True, False}
