"""The authors' Markdown memory (`datasets/v3/memory_writer.py`): their prompt verbatim,
their event line, cap and reply reading on hand-worked examples, the memory written one
calendar day a call by a scripted writer (the cadence of EVAL.md@8e2a111f, counted on a
generated persona), nothing at or after a query's time written in; and how the version
takes it (its config checked before any data are read, its prompt's digest in the run's
facts)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from support.v3_backend import timeline_events

from inspect_personamem.datasets.v3 import memory_writer
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.memory_writer import (
    DAY_SECONDS,
    EMPTY_MEMORY,
    UPDATE_PROMPT,
    MarkdownMemory,
    WriterConfig,
    event_line,
    evict,
    read_event,
    read_reply,
    update_prompt,
)
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.spec import V3Folder
from inspect_personamem.datasets.v3.version import MARKDOWN_MEMORY
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import (
    HistoryMessage,
    MemoryComponentError,
    MemoryItem,
)
from inspect_personamem.run.facts import FACTS
from inspect_personamem.run.tasks import personamem_v3

AUTHORS_DIGEST = "037e0828a971f89acf8643d845f709ca2d91d77d30990bda1188094fe8e124a4"
"""sha256 of `llm_memory_update_prompt(EMPTY_MEMORY, "", "2026 [instagram] x | y")`,
evaluation/prompts.py@11d3bf48 of bowen-upenn/PersonaMem-v3 (3,223 characters)."""


def test_the_prompt_is_the_authors_with_the_cap_interpolated() -> None:
    prompt = update_prompt(EMPTY_MEMORY, "", "2026 [instagram] x | y", 2048)
    assert len(prompt) == 3223
    assert hashlib.sha256(prompt.encode()).hexdigest() == AUTHORS_DIGEST
    assert "## Rolling summary so far\n(none yet)\n" in prompt
    other = update_prompt(EMPTY_MEMORY, "", "2026 [instagram] x | y", 4096)
    assert other == prompt.replace("hard budget of 2048 tokens", "hard budget of 4096 tokens")
    # the default cap: DEFAULT_MEMORY_TOKEN_CAP, 4096 (EVAL.md@8e2a111f)
    assert WriterConfig() == WriterConfig(token_cap=4096, temperature=0.0)


def test_an_event_reads_as_the_authors_render_it() -> None:
    event = {
        "t": 100,
        "when": "2026-04-03 10:00",
        "app": "threads",
        "type": "explicit_positive",
        "action": "liked",
        "hashtags": ["#a", "#b"],
        "title": "T" * 130,
        "caption": " line1\nline2 ",
        "user_message": "hi",
        "conversation": [{"role": "user", "content": "q"}, {"content": "a"}],
        "inferred_prefs": [{"persona_item": "jazz", "category": "music"}, {}],
    }
    assert event_line(event) == (
        "2026-04-03 10:00 [threads] explicit_positive | liked | tags=[#a,#b] | title="
        + "T" * 119
        + "… | line1 line2 | msg=hi | convo=user:q ?:a | inferred=[jazz; ]"
    )
    assert event_line({"t": 5, "app": "chatbot"}) == "5 [chatbot] | "  # an empty action kept


def test_a_timeline_message_is_read_back_and_anything_else_refused() -> None:
    message = HistoryMessage(3, "user", '[facebook] {"t": 7, "action": "x\\ny"}')
    assert read_event(message) == {"t": 7, "action": "x\ny", "app": "facebook"}
    for content in ("hello", '[facebook] {"action": "no time"}', "[facebook] {not json}"):
        with pytest.raises(MemoryComponentError, match="history message 3 is not a"):
            read_event(HistoryMessage(3, "user", content))


MEMORY = "# USER MEMORY\n## Who they are\n- a [×3]\n- b\n- c · last 04/05"
"""59 characters, 15 tokens; salience: `- b` 1, `- c` 1 + (4*31+5)/400 = 1.3225,
`- a` 1 + ln 3 = 2.10."""


@pytest.mark.parametrize(
    ("cap", "kept"),
    [
        (15, MEMORY),
        (14, "# USER MEMORY\n## Who they are\n- a [×3]\n- c · last 04/05"),  # 55 characters
        (13, "# USER MEMORY\n## Who they are\n- a [×3]"),  # 38: 10 tokens
        (1, "# USER MEMORY\n## Who they are"),  # no bullet left to drop
    ],
)
def test_the_cap_drops_the_least_salient_bullets_first(cap: int, kept: str) -> None:
    assert evict(MEMORY, cap) == kept


@pytest.mark.parametrize(
    ("reply", "read"),
    [
        ("<memory>\nM\n</memory>\n<summary> S </summary>", ("M", "S")),
        ("# USER MEMORY\n- x\n", ("# USER MEMORY\n- x", None)),
        ("I cannot help with that.", (None, None)),
        ("<memory> </memory><summary>S</summary>", (None, "S")),
    ],
)
def test_a_reply_gives_its_memory_and_summary(reply: str, read: tuple[Any, Any]) -> None:
    assert read_reply(reply) == read


def test_the_config_takes_the_authors_keys_and_refuses_others_in_one_line() -> None:
    assert WriterConfig.of({"token_cap": 4096, "temperature": 0.5}) == WriterConfig(
        token_cap=4096, temperature=0.5
    )
    cases: list[tuple[dict[str, Any], str]] = [
        ({"cap": 1}, "unknown key"),
        ({"chunk_events": 40}, "unknown key"),  # no chunking: a day a call
        ({"token_cap": 0}, "token_cap=0"),
        ({"token_cap": True}, "token_cap=True"),
        ({"token_cap": 2.5}, "token_cap=2.5"),
        ({"temperature": -1}, "temperature=-1"),
    ]
    for bad, says in cases:
        with pytest.raises(PersonaMemArgumentError, match=says) as raised:
            WriterConfig.of(bad)
        assert "\n" not in str(raised.value)


class Writer:
    """A scripted writer: replies as `replies` says (its call number -> reply), keeping
    each prompt and the temperature it was asked at."""

    def __init__(self, replies: dict[int, str] | None = None) -> None:
        self.prompts: list[str] = []
        self.temperatures: list[float | None] = []
        self.replies = replies or {}

    def output(
        self, messages: list[ChatMessage], tools: Any, choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        self.prompts.append(messages[-1].text)
        self.temperatures.append(config.temperature)
        n = len(self.prompts)
        reply = self.replies.get(
            n, f"<memory>\n# USER MEMORY\n- n{n}\n</memory><summary>s{n}</summary>"
        )
        result = ModelOutput.from_content("model", reply)
        result.usage = ModelUsage(input_tokens=100 * n, output_tokens=n, total_tokens=101 * n)
        return result


DAY0 = 20_550 * DAY_SECONDS  # 2026-04-07 00:00 UTC


def _message(position: int, t: int) -> HistoryMessage:
    event = {"t": t, "action": f"E{position}X"}
    return HistoryMessage(position, "user", f"[instagram] {json.dumps(event)}")


def _timeline(*days: int) -> list[HistoryMessage]:
    """The profile card, then `days[d]` events on each day d from DAY0, an hour apart."""
    card = HistoryMessage(0, "system", "# User profile\nPROFILECARD")
    times = [DAY0 + d * DAY_SECONDS + 3600 * i for d, n in enumerate(days) for i in range(n)]
    return [card, *(_message(1 + k, t) for k, t in enumerate(times))]


def _memory(writer: Writer, monkeypatch: pytest.MonkeyPatch) -> tuple[MarkdownMemory, list[Any]]:
    """A memory whose writer is `writer`, and the model roles it asked for."""
    model = get_model("mockllm/model", custom_outputs=writer.output, memoize=False)
    asked: list[str | None] = []

    def writer_model(*, role: str | None = None) -> Any:
        asked.append(role)
        return model

    monkeypatch.setattr(memory_writer, "get_model", writer_model)
    return MarkdownMemory("7", {}), asked


def test_the_memory_is_written_a_day_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    writer = Writer()
    memory, roles = _memory(writer, monkeypatch)
    timeline = _timeline(3, 0, 2)  # day 0: E1-E3; day 1: none; day 2: E4-E5

    async def run() -> list[MemoryItem]:
        await memory.add(timeline)
        # day 0 written when day 2's first event came; day 2 still held
        assert len(writer.prompts) == 1
        return await memory.search("what do they like?", 5)

    items = anyio.run(run)
    assert items == [MemoryItem(text="# USER MEMORY\n- n2")]
    first, second = writer.prompts
    assert f"## Current memory\n{EMPTY_MEMORY}\n" in first
    assert "## Rolling summary so far\n(none yet)\n" in first
    assert [f"E{i}X" in first for i in (1, 3, 4)] == [True, True, False]
    assert "## Current memory\n# USER MEMORY\n- n1\n" in second
    assert "## Rolling summary so far\ns1\n" in second
    assert [f"E{i}X" in second for i in (3, 4, 5)] == [False, True, True]
    assert f"{DAY0} [instagram] | E1X" in first  # the authors' line: no `when`, its time
    assert "hard budget of 4096 tokens" in first
    assert not any("PROFILECARD" in prompt for prompt in writer.prompts)
    assert writer.temperatures == [0.0, 0.0]
    assert roles == ["memory", "memory"]
    assert memory.usage() == {
        "events": 5,
        "calls": 2,
        "day_updates": 1,
        "provisional_updates": 1,
        "input_tokens": 300,
        "output_tokens": 3,
    }


def test_a_query_writes_the_day_held_provisionally_and_the_day_reuses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer()
    memory, _ = _memory(writer, monkeypatch)
    timeline = _timeline(2, 2)  # day 0: E1-E2; day 1: E3-E4

    async def run() -> None:
        await memory.add(timeline[:3])  # the card, E1, E2: a query later on day 0 or after
        assert await memory.search("q", 1) == [MemoryItem(text="# USER MEMORY\n- n1")]
        assert await memory.search("q", 1) == [MemoryItem(text="# USER MEMORY\n- n1")]
        # day 1 begins: day 0 is the events the query wrote, reused without a call
        await memory.add(timeline[3:])
        assert memory.memory == "# USER MEMORY\n- n1" and memory.summary == "s1"
        await memory.add([])
        assert await memory.search("q", 1) == [MemoryItem(text="# USER MEMORY\n- n2")]

    anyio.run(run)
    assert len(writer.prompts) == 2
    assert memory.usage()["provisional_updates"] == 2 and "day_updates" not in memory.usage()


def test_a_query_after_more_events_of_the_day_writes_again_from_the_days_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer()
    memory, _ = _memory(writer, monkeypatch)
    timeline = _timeline(3)

    async def run() -> None:
        await memory.add(timeline[:2])  # E1
        await memory.search("q", 1)
        await memory.add(timeline[2:])  # E2, E3 of the same day
        await memory.search("q", 1)

    anyio.run(run)
    first, second = writer.prompts
    # the second starts from the memory of the days before (empty), not from the first
    assert f"## Current memory\n{EMPTY_MEMORY}\n" in second
    assert [f"E{i}X" in second for i in (1, 2, 3)] == [True, True, True]
    assert "E2X" not in first


def test_events_out_of_day_order_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    memory, _ = _memory(Writer(), monkeypatch)
    late, early = _message(1, DAY0 + DAY_SECONDS), _message(2, DAY0)

    async def run() -> None:
        await memory.add([late, early])

    with pytest.raises(MemoryComponentError, match="history message 2 .* before the day"):
        anyio.run(run)


def test_a_query_before_any_event_reads_the_empty_memory_without_a_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer()
    memory, _ = _memory(writer, monkeypatch)

    async def run() -> list[MemoryItem]:
        await memory.add(_timeline())
        return await memory.search("q", 1)

    assert anyio.run(run) == [MemoryItem(text=EMPTY_MEMORY)]
    assert writer.prompts == [] and memory.usage() == {}


def test_an_unread_reply_keeps_the_memory_and_is_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer({2: "I cannot help with that."})
    memory, _ = _memory(writer, monkeypatch)

    async def run() -> list[MemoryItem]:
        await memory.add(_timeline(1, 1))
        return await memory.search("q", 1)

    assert anyio.run(run) == [MemoryItem(text="# USER MEMORY\n- n1")]
    assert memory.usage()["unread_replies"] == 1


# --- the version's side -----------------------------------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("v3"), personas=1, queries_per_type=1, seed=3)


def test_a_generated_persona_takes_one_call_per_day_and_nothing_from_its_query_time_on(
    folder: V3Folder, monkeypatch: pytest.MonkeyPatch
) -> None:
    contexts = PersonaContexts(PersonaStreams(folder.root / "backend"))
    uid = folder.personas[0]
    events = timeline_events(contexts.streams, uid)
    days = sorted({event.source_timestamp // DAY_SECONDS for event in events})
    assert len(days) >= 3
    messages = [HistoryMessage(i, m.role, m.text) for i, m in enumerate(contexts.messages(uid))]
    # a query at noon of the second-to-last day: the memory takes the events before it
    query_t = days[-2] * DAY_SECONDS + 12 * 3600
    end = contexts.end_index_at(uid, query_t)
    writer = Writer()
    memory, _ = _memory(writer, monkeypatch)

    async def run() -> None:
        await memory.add(messages[:end])
        await memory.search("q", 1)

    anyio.run(run)
    seen = [read_event(m) for m in messages[1:end]]
    held_days = sorted({e["t"] // DAY_SECONDS for e in seen})
    # one call per day with events before the query (the last one at the query)
    assert len(writer.prompts) == len(held_days) == memory.usage()["calls"]
    later = [read_event(m) for m in messages[end:]]
    assert later and all(e["t"] >= query_t for e in later)
    activities = [
        prompt.split("## New activity (chronological, time-masked)\n")[1]
        for prompt in writer.prompts
    ]
    for activity in activities:
        written = [e for e in seen if event_line(e) in activity]
        assert written and len({e["t"] // DAY_SECONDS for e in written}) == 1  # a day a call
    assert all(event_line(e) not in activity for e in later for activity in activities)
    # every event before the query was written, in its day's call
    assert all(any(event_line(e) in activity for activity in activities) for e in seen)


def test_a_bad_writer_config_is_refused_before_any_data_are_read(tmp_path: Path) -> None:
    config = tmp_path / "writer.json"
    config.write_text(json.dumps({"cap": 4096}), encoding="utf-8")
    with pytest.raises(PersonaMemArgumentError, match="unknown key") as raised:
        personamem_v3(  # the folder does not exist: the config is refused first
            data_dir=str(tmp_path / "absent"),
            history="memory",
            memory=MARKDOWN_MEMORY,
            memory_config=str(config),
        )
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("settings", "digested"),
    [
        ({"history": "memory", "memory": MARKDOWN_MEMORY}, True),
        (
            {"history": "tools", "search": "memory", "memory": MARKDOWN_MEMORY},
            True,
        ),
        ({"history": "memory", "memory": "support.memories:SpyMemory"}, False),
        ({"history": "rag", "retriever": "bm25"}, False),
    ],
)
def test_the_writers_prompt_digest_is_in_the_facts_where_it_writes(
    folder: V3Folder, settings: dict[str, Any], digested: bool
) -> None:
    task = personamem_v3(data_dir=str(folder.root), **settings)
    prompts = (task.metadata or {})[FACTS]["prompts"]
    name = "datasets/v3/memory_writer.py:UPDATE_PROMPT"
    assert (name in prompts) == digested
    if digested:
        assert prompts[name] == hashlib.sha256(UPDATE_PROMPT.encode()).hexdigest()
