"""`history=rag` and `history=memory`: what a leak-free memory returns for the question.

Both feed a `MemoryPool` (one memory per shared context, never holding more than
`context[:end_index]` of the question at hand), search it with the question
(`AskedAt.message`), and hand the items on as the history (`memory/prompts.py`): the
retrieved messages in their original order and roles, a memory system's facts as one
user message; with another `memory_prompt`, the whole prompt the dataset version
offers under that name instead (PersonaMem's `paper`). What the retrieval did goes to
the sample's metadata under `memory`: the items (history positions and scores, or
texts), messages added and whether the memory was rebuilt (and why), ingestion seconds
(and each `add` call's) and search seconds, the longest time a call into the memory
held the event loop, embedding counts so far, and the memory system's own usage where
it reports it (this question's, and the run's so far). Where the question's evidence lies goes under
`evidence`, and whether the items found it under `retrieval` (`recall.py`).

The pools are built by `retriever_pool` and `memory_pool`, and kept in the metadata
by `memory_record`: `history=tools` (`tools.py`) searches with the same.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

import yaml
from inspect_ai.solver import TaskState

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.contexts import Contexts
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.embeddings import (
    CachedEmbedder,
    EmbeddingCache,
    default_cache_dir,
)
from inspect_personamem.history.memory.embeddings import embedder_for as make_embedder
from inspect_personamem.history.memory.interface import (
    MemoryComponentError,
    MemoryFactory,
    MemoryItem,
)
from inspect_personamem.history.memory.pool import MemoryPool, Retrieval
from inspect_personamem.history.memory.prompts import OFFICIAL, own_prompt, retrieved_history
from inspect_personamem.history.memory.retrievers import BM25Retriever, DenseRetriever
from inspect_personamem.history.recall import recall_of
from inspect_personamem.history.seen import Past, See, Seen
from inspect_personamem.types import Retriever

DEFAULT_EMBEDDER: Final = "BAAI/bge-m3"
"""The paper's dense model (the authors ran it through FlagEmbedding in fp16)."""


def rag_history(
    past: Past,
    retriever: Retriever = "dense",
    embedder: str = DEFAULT_EMBEDDER,
    top_k: int = 5,
    memory_prompt: str = OFFICIAL,
    embedding_cache: str | None = None,
) -> See:
    """The `top_k` history messages most similar to the question.

    Args:
        past: The run's histories and its evidence rule.
        retriever: "dense" (embeddings, the paper's) or "bm25" (no model).
        embedder: retriever="dense": a sentence-transformers id or folder,
            `openai/<model>` or `openai-api/<service>/<model>`.
        top_k: Messages retrieved per question.
        memory_prompt: "official", or a prompt the dataset version offers (see
            `memory/prompts.py`).
        embedding_cache: Folder of the embedding cache; default: the user cache
            folder (PERSONAMEM_EMBEDDING_CACHE overrides); "none": no disk cache.
    """
    pool, embeddings = retriever_pool(past.contexts, retriever, embedder, embedding_cache)
    return _retrieved(past, pool, embeddings, top_k, memory_prompt)


def retriever_pool(
    contexts: Contexts,
    retriever: Retriever,
    embedder: str = DEFAULT_EMBEDDER,
    embedding_cache: str | None = None,
) -> tuple[MemoryPool, CachedEmbedder | None]:
    """The pool of a built-in retriever over the histories, and its embedder (None for
    BM25)."""
    if retriever == "bm25":
        if embedder != DEFAULT_EMBEDDER:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter embedder={embedder!r} has no effect with "
                "retriever='bm25': leave it out"
            )
        return MemoryPool(contexts, lambda _: BM25Retriever(), "retriever bm25"), None
    cache = None if embedding_cache == "none" else EmbeddingCache(
        Path(embedding_cache) if embedding_cache else default_cache_dir()
    )  # fmt: skip
    embeddings = CachedEmbedder(make_embedder(embedder), cache)
    pool = MemoryPool(
        contexts, lambda _: DenseRetriever(embeddings), f"dense retriever ({embedder})"
    )
    return pool, embeddings


def memory_history(
    past: Past,
    memory: str | None = None,
    memory_config: str | None = None,
    top_k: int = 5,
    memory_prompt: str = OFFICIAL,
) -> See:
    """The `top_k` items of a memory system fed the history incrementally.

    Args:
        past: The run's histories and its evidence rule.
        memory: "mem0", "mcp" (an MCP server; see `memory/mcp_config.py`), or
            "package.module:Factory" (a class or function taking `(context_id, config)`;
            see `memory/interface.py`).
        memory_config: A YAML or JSON file whose mapping is passed as `config`.
        top_k: Items asked for per question.
        memory_prompt: "official", or a prompt the dataset version offers (see
            `memory/prompts.py`).
    """
    return _retrieved(
        past, memory_pool(past.contexts, memory, memory_config), None, top_k, memory_prompt
    )


def memory_pool(
    contexts: Contexts,
    memory: str | None,
    memory_config: str | None,
    needed_by: str = "history='memory'",
) -> MemoryPool:
    """The pool of the memory system `memory` names, configured by `memory_config`
    (`needed_by`: the setting that asks for one, for errors)."""
    factory = memory_factory(memory, memory_config, needed_by)
    return MemoryPool(contexts, factory, f"memory system {memory}")


def memory_factory(
    spec: str | None,
    config_file: str | None,
    needed_by: str = "history='memory'",
    *,
    connect: bool = False,
) -> MemoryFactory:
    """The factory a `-T memory=...` spec names: "mem0", "mcp" or "module:attribute",
    given the mapping in `config_file` (checked where it is read here); a one-line error
    where it names none that can be had (`needed_by`: the setting that asks for one).
    `connect`: start (or reach) an MCP server once and check its tools against the
    config (the task's refusals do, before any data are read)."""
    if not spec:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter memory: {needed_by} needs one: "
            "-T memory=mem0, -T memory=mcp or -T memory=package.module:Factory"
        )
    config = read_memory_config(config_file)
    if spec == "mem0":
        from inspect_personamem.history.memory.mem0 import Mem0Memory

        return lambda context_id: Mem0Memory(context_id, config)
    if spec == "mcp":
        return _mcp_factory(config, config_file, connect)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter memory={spec!r}: expected 'mem0', 'mcp' or "
            "'package.module:Factory'"
        )
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except Exception as ex:  # a missing module or name, or one that fails as it loads
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter memory={spec!r}: cannot import it "
            f"({type(ex).__name__}: {ex})"
        ) from ex
    if not callable(target):
        raise PersonaMemArgumentError(f"PersonaMem task parameter memory={spec!r}: not callable")
    return lambda context_id: target(context_id, config)


def _mcp_factory(config: dict[str, Any], file: str | None, connect: bool) -> MemoryFactory:
    """An MCP server per memory, its config checked now (`memory/mcp_config.py`), and
    with `connect` its server too (`memory/mcp.py:check_server`)."""
    from inspect_personamem.history.memory.mcp import check_server, mcp_memory_class
    from inspect_personamem.history.memory.mcp_config import parse_mcp_config

    checked = parse_mcp_config(config, file)
    try:
        memory = mcp_memory_class()
    except MemoryComponentError as ex:
        raise PersonaMemArgumentError(f"PersonaMem task parameter memory='mcp': {ex}") from ex
    if connect:
        check_server(checked)
    return lambda context_id: memory(context_id, checked)


def read_memory_config(path: str | None) -> dict[str, Any]:
    """The mapping in a YAML or JSON file (`-T memory_config=FILE`); {} without one."""
    if path is None:
        return {}
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        value = json.loads(text) if file.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as ex:
        raise PersonaMemArgumentError(
            f"memory_config {path}: cannot read it ({type(ex).__name__}: {ex})"
        ) from ex
    if not isinstance(value, dict):
        raise PersonaMemArgumentError(f"memory_config {path}: expected a mapping at the top level")
    return value


def _retrieved(
    past: Past,
    pool: MemoryPool,
    embeddings: CachedEmbedder | None,
    top_k: int,
    memory_prompt: str,
) -> See:
    own = own_prompt(past.prompts, memory_prompt)

    async def see(state: TaskState) -> Seen:
        asked = AskedAt.of(state.metadata)
        context_id, question = asked.history, asked.message
        retrieval = await pool.retrieve(
            str(state.sample_id), context_id, asked.end_index, question, top_k
        )
        state.metadata["memory"] = memory_record(retrieval, embeddings, pool)
        state.metadata["retrieval"] = recall_of(
            retrieval.items, past.evidence(state), top_k
        ).record()
        context = pool.store.messages(context_id)
        if own is not None:
            return Seen((), prompt=own.compose(retrieval.items, context, top_k, state))
        return Seen(retrieved_history(retrieval.items, context))

    return see


def memory_record(
    retrieval: Retrieval, embeddings: CachedEmbedder | None, pool: MemoryPool
) -> dict[str, Any]:
    """What a sample's metadata keeps of a retrieval (`memory`): its items, what was
    added, its times, and the run's counts so far."""
    return {
        "items": [_item_evidence(item) for item in retrieval.items],
        "visible_messages": retrieval.visible,
        "added_messages": retrieval.added,
        "rebuilt": retrieval.rebuilt is not None,
        "rebuilt_because": retrieval.rebuilt,
        "ingest_seconds": retrieval.ingest_seconds,
        "ingest_calls": list(retrieval.ingest_calls),
        "search_seconds": retrieval.search_seconds,
        "loop_blocked_seconds": retrieval.loop_blocked_seconds,
        "memory_usage": retrieval.memory_usage,
        "run_added_messages": pool.added_messages,
        "run_rebuilds": pool.rebuilds,
        "run_memory_usage": dict(pool.usage),
        "embedding_counts": asdict(embeddings.counts) if embeddings else None,
    }


def _item_evidence(item: MemoryItem) -> dict[str, Any]:
    if item.position is not None:  # the text is the history message, in the model call
        return {"position": item.position, "score": item.score}
    return {"text": item.text, "score": item.score}
