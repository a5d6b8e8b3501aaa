"""`history/memory/mem0.py`: Mem0 as a memory system. Its config for one context
(a local Qdrant store in a fresh folder and an in-memory history unless configured, the
search threshold taken out), the count of its models' calls and tokens, its adds and
searches through a stand-in of Mem0's `Memory`, and, with the real mem0ai package (the
memory extra) against a local OpenAI stand-in, a run end to end and the stores it
leaves behind (none)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from inspect_ai.log import EvalLog
from support.helpers import mock_model, run_task
from support.memories import MARKER, context_numbers, split_with_markers
from support.servers.openai_api import mem0_stand_in_config, prompt_tokens, serve_openai

from inspect_personamem.history.memory import mem0 as mem0_module
from inspect_personamem.history.memory.interface import (
    HistoryMessage,
    MemoryComponentError,
    MemoryItem,
)
from inspect_personamem.history.memory.mem0 import (
    USER_ID,
    Mem0Memory,
    _count_tokens,
    _temporary_root,
    mem0_config,
)

TASK = "inspect_personamem/personamem_32k"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return split_with_markers(tmp_path_factory.mktemp("markers"))


def run(data: Path, log_dir: Path, **task_args: Any) -> EvalLog:
    return run_task(
        TASK,
        mock_model(lambda messages: "<final_answer>(a)"),
        log_dir,
        {"data_dir": str(data), **task_args},
    )


def test_a_context_s_default_config_is_a_fresh_local_store_and_an_in_memory_history() -> None:
    given = {"llm": {"provider": "openai"}}
    settings, threshold, folder = mem0_config(given, "ctx")
    assert folder is not None and Path(folder).is_dir()
    assert Path(folder).parent == Path(_temporary_root())
    assert Path(folder).name.startswith("qdrant-")
    store = settings["vector_store"]
    assert store["provider"] == "qdrant" and store["config"]["path"] == folder
    name = store["config"]["collection_name"]
    assert name.startswith("personamem_") and len(name) == len("personamem_") + 12
    assert "embedding_model_dims" not in store["config"]  # no embedder dims said
    assert settings["history_db_path"] == ":memory:"
    assert settings["llm"] == {"provider": "openai"} and threshold == 0.0
    assert given == {"llm": {"provider": "openai"}}  # the user's config is not changed
    again, _, other = mem0_config(given, "ctx")
    assert other != folder
    assert again["vector_store"]["config"]["collection_name"] != name
    shutil.rmtree(folder)
    assert other is not None
    shutil.rmtree(other)


def test_the_search_threshold_is_taken_out_of_mem0_s_config() -> None:
    store = {"provider": "chroma", "config": {"collection_name": "mine"}}
    settings, threshold, folder = mem0_config(
        {"search_threshold": "0.25", "vector_store": store, "history_db_path": "h.db"}, "ctx"
    )
    assert threshold == 0.25 and "search_threshold" not in settings
    assert folder is None  # a configured store: no folder made
    assert settings["vector_store"] == store and settings["history_db_path"] == "h.db"


def test_the_embedder_s_dimensions_size_a_qdrant_store_only() -> None:
    embedder = {"provider": "openai", "config": {"embedding_dims": 384}}
    qdrant = {"provider": "qdrant", "config": {"path": "/somewhere"}}
    settings, _, _ = mem0_config({"embedder": embedder, "vector_store": qdrant}, "ctx")
    assert settings["vector_store"]["config"]["embedding_model_dims"] == 384
    sized = {"provider": "qdrant", "config": {"embedding_model_dims": 8}}
    settings, _, _ = mem0_config({"embedder": embedder, "vector_store": sized}, "ctx")
    assert settings["vector_store"]["config"]["embedding_model_dims"] == 8  # its own kept
    chroma = {"provider": "chroma"}
    settings, _, _ = mem0_config({"embedder": embedder, "vector_store": chroma}, "ctx")
    assert set(settings["vector_store"]["config"]) == {"collection_name"}


class Endpoint:
    """An OpenAI client endpoint that reports `usage` (None: no usage)."""

    def __init__(self, usage: Any) -> None:
        self.usage = usage
        self.calls: list[dict[str, Any]] = []

    def create(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return SimpleNamespace(usage=self.usage, data="reply")


def test_each_call_and_its_reported_tokens_are_counted() -> None:
    counts: Counter[str] = Counter()
    chat = Endpoint(SimpleNamespace(prompt_tokens=7, completion_tokens=3))
    embeddings = Endpoint(SimpleNamespace(prompt_tokens=5))
    _count_tokens(chat, counts, "mem0_llm")
    _count_tokens(embeddings, counts, "mem0_embedding")
    assert chat.create(model="m").data == "reply" and chat.calls == [{"model": "m"}]
    chat.create(model="m")
    embeddings.create(input="x")
    assert counts == {
        "mem0_llm_calls": 2, "mem0_llm_input_tokens": 14, "mem0_llm_output_tokens": 6,
        "mem0_embedding_calls": 1, "mem0_embedding_input_tokens": 5,
    }  # fmt: skip


def test_a_call_without_usage_counts_as_a_call_and_an_endpoint_without_create_as_nothing() -> None:
    counts: Counter[str] = Counter()
    silent = Endpoint(None)
    _count_tokens(silent, counts, "mem0_llm")
    silent.create()
    _count_tokens(None, counts, "mem0_embedding")
    _count_tokens(SimpleNamespace(), counts, "mem0_embedding")
    assert counts == {"mem0_llm_calls": 1, "mem0_llm_input_tokens": 0}


class StandInMemory:
    """Mem0's `Memory` as `Mem0Memory` calls it: `from_config`, `add`, `search`, an LLM
    and an embedder with OpenAI clients, a vector store with a client to close."""

    made: list[StandInMemory] = []

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.added: list[tuple[list[dict[str, str]], str]] = []
        self.result: Any = {"results": [{"memory": "likes tea", "score": 0.8}, {"memory": 3}]}
        self.searched: list[tuple[str, dict[str, Any]]] = []
        completions = Endpoint(SimpleNamespace(prompt_tokens=4, completion_tokens=1))
        self.llm = SimpleNamespace(
            client=SimpleNamespace(chat=SimpleNamespace(completions=completions))
        )
        embeddings = Endpoint(SimpleNamespace(prompt_tokens=2))
        self.embedding_model = SimpleNamespace(client=SimpleNamespace(embeddings=embeddings))
        self.closed = False
        self.vector_store = SimpleNamespace(client=SimpleNamespace(close=self.close_client))

    def close_client(self) -> None:
        self.closed = True

    @classmethod
    def from_config(cls, settings: dict[str, Any]) -> StandInMemory:
        if settings.get("fail"):
            raise ValueError("bad llm provider")
        cls.made.append(cls(settings))
        return cls.made[-1]

    def add(self, messages: list[dict[str, str]], user_id: str) -> None:
        self.added.append((messages, user_id))
        self.llm.client.chat.completions.create(messages=messages)

    def search(self, query: str, **kwargs: Any) -> Any:
        self.searched.append((query, kwargs))
        self.embedding_model.client.embeddings.create(input=query)
        return self.result


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> type[StandInMemory]:
    StandInMemory.made = []
    monkeypatch.setattr(mem0_module, "_memory_class", lambda: StandInMemory)
    return StandInMemory


def test_a_session_is_added_for_the_one_user_and_a_search_s_hits_are_items(
    stand_in: type[StandInMemory],
) -> None:
    memory = Mem0Memory("ctx", {"search_threshold": 0.5})
    (made,) = stand_in.made
    assert made.settings["vector_store"]["provider"] == "qdrant"
    anyio.run(
        memory.add, [HistoryMessage(0, "user", "I like tea"), HistoryMessage(1, "assistant", "ok")]
    )
    assert made.added == [
        (
            [{"role": "user", "content": "I like tea"}, {"role": "assistant", "content": "ok"}],
            USER_ID,
        )
    ]
    items = anyio.run(memory.search, "drinks?", 2)
    assert items == [MemoryItem("likes tea", 0.8), MemoryItem("3", None)]
    assert made.searched == [
        ("drinks?", {"filters": {"user_id": USER_ID}, "top_k": 2, "threshold": 0.5})
    ]
    assert memory.usage() == {
        "mem0_add_calls": 1, "mem0_search_calls": 1,
        "mem0_llm_calls": 1, "mem0_llm_input_tokens": 4, "mem0_llm_output_tokens": 1,
        "mem0_embedding_calls": 1, "mem0_embedding_input_tokens": 2,
    }  # fmt: skip


@pytest.mark.parametrize("result", [["likes tea"], {"hits": []}, None])
def test_a_search_result_of_another_shape_is_a_component_error(
    stand_in: type[StandInMemory], result: Any
) -> None:
    memory = Mem0Memory("ctx", {})
    stand_in.made[0].result = result
    with pytest.raises(MemoryComponentError, match="mem0: search returned"):
        anyio.run(memory.search, "q", 1)


def test_closing_closes_the_store_s_client_and_removes_its_folder(
    stand_in: type[StandInMemory],
) -> None:
    memory = Mem0Memory("ctx", {})
    folder = Path(stand_in.made[0].settings["vector_store"]["config"]["path"])
    assert folder.is_dir()
    memory.close()
    assert stand_in.made[0].closed and not folder.exists()


def test_a_config_mem0_refuses_is_a_component_error_leaving_no_folder(
    stand_in: type[StandInMemory], monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    real = mem0_module.mem0_config

    def recorded(config: dict[str, Any], context_id: str) -> Any:
        settings, threshold, folder = real(config, context_id)
        made.append(str(folder))
        return settings, threshold, folder

    monkeypatch.setattr(mem0_module, "mem0_config", recorded)
    with pytest.raises(MemoryComponentError) as error:
        Mem0Memory("ctx", {"fail": True})
    assert str(error.value) == "mem0: Memory.from_config failed (ValueError: bad llm provider)"
    (folder,) = made
    assert not Path(folder).exists()


@pytest.mark.memory
def test_mem0_end_to_end_against_a_local_openai_stand_in(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real mem0ai package, its LLM and embedder served by the stand-in: facts are
    extracted from each session as it arrives and searched per question."""
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0"))
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with serve_openai() as (url, requests):
        config = mem0_stand_in_config(url)
        (tmp_path / "mem0.json").write_text(json.dumps(config), encoding="utf-8")
        log = run(
            data,
            tmp_path / "logs",
            history="memory",
            memory="mem0",
            memory_config=str(tmp_path / "mem0.json"),
            order="grouped",
            top_k=3,
        )
    assert log.status == "success", log.error
    assert log.samples
    numbers = context_numbers(data)
    for sample in log.samples:
        items = sample.metadata["memory"]["items"]
        assert 0 < len(items) <= 3 and all(i["text"].startswith("User said: ") for i in items)
        context = numbers[sample.metadata["shared_context_id"]]
        end = sample.metadata["end_index_in_shared_context"]
        for c, p in MARKER.findall(" ".join(i["text"] for i in items)):
            assert (int(c), int(p)) == (context, int(p)) and int(p) < end
    extraction = [r for r in requests if r["path"].endswith("/chat/completions")]
    embedding = [r for r in requests if r["path"].endswith("/embeddings")]
    assert extraction and len(extraction) >= len(
        {s.metadata["shared_context_id"] for s in log.samples}
    )
    # per question: what its ingestion and search cost; summed, the run's totals, which
    # match what the endpoint saw call for call and token for token
    used: Counter[str] = Counter()
    for sample in log.samples:
        used.update(sample.metadata["memory"]["memory_usage"])
    runs = [s.metadata["memory"]["run_memory_usage"] for s in log.samples]
    run_totals = max(runs, key=lambda totals: totals.get("mem0_search_calls", 0))
    assert used["mem0_llm_calls"] == len(extraction) > 0
    assert used["mem0_llm_input_tokens"] == sum(prompt_tokens(r) for r in extraction)
    assert used["mem0_embedding_calls"] == len(embedding) > 0
    assert used["mem0_embedding_input_tokens"] == sum(
        len(t.split())
        for r in embedding
        for t in ([r["input"]] if isinstance(r["input"], str) else r["input"])
    )
    assert used["mem0_add_calls"] > 0 and used["mem0_search_calls"] == len(log.samples)
    assert run_totals == dict(used)


def stores(temporary: Path) -> list[str]:
    """The Mem0 stores under `temporary` now. A run removes them as it ends, and a
    folder removed while it is being listed makes the listing fail (pathlib's glob lets
    FileNotFoundError through): what was there then is gone, and none is counted."""
    try:
        return [path.name for path in temporary.glob("personamem-mem0-*/qdrant-*")]
    except FileNotFoundError:
        return []


def test_stores_removed_as_they_are_listed_are_not_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race `stores` meets at the end of a run, forced: the run's folder is removed
    just before the listing enters it."""
    folder = tmp_path / "personamem-mem0-1"
    (folder / "qdrant-a").mkdir(parents=True)
    assert stores(tmp_path) == ["qdrant-a"]
    scandir = os.scandir

    def removed_first(path: Any) -> Any:
        if not isinstance(path, int) and Path(path) == folder:  # rmtree lists by fd
            shutil.rmtree(folder)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", removed_first)
    assert stores(tmp_path) == []


RUN_MEM0 = """
import json, sys
from inspect_ai import eval
logs = eval(
    "inspect_personamem/personamem_32k", model="personamem/oracle",
    model_args={"questions": sys.argv[3]}, task_args=json.loads(sys.argv[1]),
    display="none", log_dir=sys.argv[2], limit=6,
)
print(logs[0].status)
"""


@pytest.mark.slow
@pytest.mark.memory
def test_mem0_leaves_no_store_behind(data: Path, tmp_path: Path) -> None:
    """A whole `inspect eval` process with Mem0 (its LLM and embedder the loopback
    stand-in): the stores it made in the temporary directory are gone when it ends."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    seen: list[str] = []
    with serve_openai() as (url, requests):
        config = mem0_stand_in_config(url)
        (tmp_path / "mem0.json").write_text(json.dumps(config), encoding="utf-8")
        task_args = {
            "data_dir": str(data), "history": "memory", "memory": "mem0",
            "memory_config": str(tmp_path / "mem0.json"),
        }  # fmt: skip
        env = {**os.environ, "TMPDIR": str(temporary)}
        env.pop("MEM0_DIR", None)
        # its output to files, not pipes: pipes no one reads while the run is watched
        # fill (64 KiB) and stop it
        with (
            open(tmp_path / "out", "w", encoding="utf-8") as stdout,
            open(tmp_path / "err", "w", encoding="utf-8") as stderr,
        ):
            process = subprocess.Popen(
                [sys.executable, "-c", RUN_MEM0, json.dumps(task_args), str(tmp_path / "logs"),
                 str(data / "questions_32k.csv")],
                env=env, stdout=stdout, stderr=stderr, text=True,
            )  # fmt: skip
            while process.poll() is None:  # what the run holds while it runs
                seen.extend(stores(temporary))
                time.sleep(0.05)
    out, err = ((tmp_path / name).read_text(encoding="utf-8") for name in ("out", "err"))
    assert out.strip().endswith("success"), err[-2000:]
    assert any(r["path"].endswith("/chat/completions") for r in requests)
    assert seen  # the stores were there during the run
    assert list(temporary.iterdir()) == []


def test_add_batch_gives_mem0_at_most_that_many_messages_an_add(
    stand_in: type[StandInMemory],
) -> None:
    memory = Mem0Memory("ctx", {"add_batch": 2})
    (made,) = stand_in.made
    assert "add_batch" not in made.settings  # the adapter's, not Mem0's
    anyio.run(memory.add, [HistoryMessage(i, "user", f"m{i}") for i in range(5)])
    assert [[m["content"] for m in added] for added, _ in made.added] == [
        ["m0", "m1"],
        ["m2", "m3"],
        ["m4"],
    ]
    assert memory.usage()["mem0_add_calls"] == 3
    for bad in (0, True, "40"):
        with pytest.raises(MemoryComponentError, match="add_batch"):
            Mem0Memory("ctx", {"add_batch": bad})
