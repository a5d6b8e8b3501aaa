"""Mem0 (the `mem0ai` package, the `memory` extra) as a PersonaMem memory system.

One Mem0 `Memory` per shared context, built with `Memory.from_config` from the
`-T memory_config` file (its `llm`, `embedder` and other keys, as Mem0 documents
them; without a file, Mem0's defaults: OpenAI models with `OPENAI_API_KEY`). Unless
the file says otherwise, the vector store is Qdrant in local mode (no server) in a
fresh folder and the history database is in memory, one per context, so no context's
messages reach another's memory. Telemetry is off (`MEM0_TELEMETRY=False`) and
Mem0's folder (`MEM0_DIR`) is a temporary one, both set before Mem0 is imported
unless the user set them.

The temporary folders (Mem0's, and each context's Qdrant store, which holds the facts
extracted from the history) sit in one folder per process, `personamem-mem0-*` in the
system's temporary directory: a memory's store is removed when the memory is closed
(the pool drops it, or the run's memories are released), and the whole folder when
the process exits.

Each session (or part of one) is given to `Memory.add` as role/content messages
for one user id, Mem0 extracting facts with its LLM (one call per add in mem0ai 2);
`add_batch: N` in the config file gives it at most N messages an add (a history that is
one long session, as a PersonaMem-v3 persona's timeline is, would otherwise reach Mem0's
LLM whole; the authors add 40 events at a time);
a question is `Memory.search(question, top_k=...)`, each result's `memory` text an
item. `search_threshold` in the config file (default 0: keep every hit, as the
authors' mem0 version did) is passed to the search.

Mem0 keeps its models' token usage to itself. Where its LLM or embedder talks through
an OpenAI client (the `openai`, `azure_openai`, `deepseek`, `vllm`, `lmstudio` and
other OpenAI-compatible providers), the client's `create` is wrapped to count calls
and the tokens the endpoint reports; other providers report calls only.
"""

from __future__ import annotations

import atexit
import copy
import functools
import os
import shutil
import tempfile
import threading
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any

import anyio

from inspect_personamem.history.memory.interface import (
    HistoryMessage,
    MemoryComponentError,
    MemoryItem,
)

USER_ID = "personamem_user"
_import_lock = threading.Lock()


_root_lock = threading.Lock()


def _temporary_root() -> str:
    """This process's folder of temporary Mem0 stores, removed when the process exits
    (memories are made in worker threads, hence the lock)."""
    with _root_lock:
        return _make_root()


@functools.cache
def _make_root() -> str:
    root = tempfile.mkdtemp(prefix="personamem-mem0-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def _memory_class() -> Any:
    with _import_lock:
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        if "MEM0_DIR" not in os.environ:
            os.environ["MEM0_DIR"] = os.path.join(_temporary_root(), "mem0")
        try:
            from mem0 import Memory
        except ImportError as ex:
            raise MemoryComponentError(
                "memory=mem0 needs the mem0ai package: pip install 'inspect-personamem[memory]'"
            ) from ex
    return Memory


def mem0_config(
    config: dict[str, Any], context_id: str
) -> tuple[dict[str, Any], float, str | None]:
    """Mem0's config for one context (local stores unless configured), the search
    threshold, and the temporary folder made for its vector store (None if configured)."""
    settings = copy.deepcopy(config)
    threshold = float(settings.pop("search_threshold", 0.0))
    dims = ((settings.get("embedder") or {}).get("config") or {}).get("embedding_dims")
    folder = None
    if "vector_store" not in settings:
        folder = tempfile.mkdtemp(prefix="qdrant-", dir=_temporary_root())
        settings["vector_store"] = {"provider": "qdrant", "config": {"path": folder}}
    store = settings["vector_store"]
    store_config = store.setdefault("config", {})
    store_config.setdefault("collection_name", f"personamem_{uuid.uuid4().hex[:12]}")
    if dims is not None and store.get("provider") == "qdrant":
        store_config.setdefault("embedding_model_dims", dims)
    settings.setdefault("history_db_path", ":memory:")
    return settings, threshold, folder


class Mem0Memory:
    """A Mem0 memory of one shared context."""

    def __init__(self, context_id: str, config: dict[str, Any]) -> None:
        config = dict(config)
        self.batch = config.pop("add_batch", None)
        if self.batch is not None and (
            isinstance(self.batch, bool) or not isinstance(self.batch, int) or self.batch < 1
        ):
            raise MemoryComponentError(f"mem0: add_batch={self.batch!r} is not a positive integer")
        settings, self.threshold, self._folder = mem0_config(config, context_id)
        try:
            self._memory = _memory_class().from_config(settings)
        except Exception as ex:
            self.close()
            if isinstance(ex, MemoryComponentError):
                raise
            raise MemoryComponentError(
                f"mem0: Memory.from_config failed ({type(ex).__name__}: {ex})"
            ) from ex
        self.adds = 0
        self.searches = 0
        self.counts: Counter[str] = Counter()
        llm_client = getattr(getattr(self._memory, "llm", None), "client", None)
        embedder_client = getattr(getattr(self._memory, "embedding_model", None), "client", None)
        _count_tokens(
            getattr(getattr(llm_client, "chat", None), "completions", None), self.counts, "mem0_llm"
        )
        _count_tokens(getattr(embedder_client, "embeddings", None), self.counts, "mem0_embedding")

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        payload = [{"role": m.role, "content": m.content} for m in messages]
        size = self.batch or len(payload) or 1
        for start in range(0, len(payload), size):
            part = payload[start : start + size]
            await anyio.to_thread.run_sync(
                functools.partial(self._memory.add, part, user_id=USER_ID)
            )
            self.adds += 1

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        result = await anyio.to_thread.run_sync(
            lambda: self._memory.search(
                query, filters={"user_id": USER_ID}, top_k=top_k, threshold=self.threshold
            )
        )
        self.searches += 1
        hits = result.get("results") if isinstance(result, dict) else None
        if not isinstance(hits, list):
            raise MemoryComponentError(f"mem0: search returned {type(result).__name__}")
        return [MemoryItem(text=str(hit["memory"]), score=hit.get("score")) for hit in hits]

    def close(self) -> None:
        """Close the vector store's client and remove its temporary folder, if one was
        made for it."""
        store = getattr(getattr(self, "_memory", None), "vector_store", None)
        close_client = getattr(getattr(store, "client", None), "close", None)
        if callable(close_client):
            close_client()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    def usage(self) -> dict[str, int]:
        """Calls made to Mem0, and its models' calls and tokens where they are counted."""
        return {"mem0_add_calls": self.adds, "mem0_search_calls": self.searches, **self.counts}


def _count_tokens(endpoint: Any, counts: Counter[str], prefix: str) -> None:
    """Wrap an OpenAI client endpoint's `create` (chat completions or embeddings) to add
    each call and its reported `usage` to `counts`; nothing if there is none."""
    create = getattr(endpoint, "create", None)
    if not callable(create):
        return

    def counted(*args: Any, **kwargs: Any) -> Any:
        response = create(*args, **kwargs)
        usage = getattr(response, "usage", None)
        counts[f"{prefix}_calls"] += 1
        counts[f"{prefix}_input_tokens"] += int(getattr(usage, "prompt_tokens", 0) or 0)
        output = getattr(usage, "completion_tokens", None)
        if output is not None:
            counts[f"{prefix}_output_tokens"] += int(output)
        return response

    endpoint.create = counted
