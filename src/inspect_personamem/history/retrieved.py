"""The `rag` and `memory` answering methods: retrieve from a leak-free memory, then ask.

Both feed a `MemoryPool` (one memory per shared context, never holding more than
`context[:end_index]` of the question at hand), search it with the question
(`user_question_or_message`), and send the items in the chosen prompt
(`prompts.py`). The evidence goes to the sample's metadata under `memory`: the
items (history positions and scores, or texts), messages added and whether the
memory was rebuilt (and why), ingestion and search seconds, the longest time a call
into the memory held the event loop, embedding counts so far, and the
memory system's own usage where it reports it (this question's, and the run's so far).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

import yaml
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..data.contexts import ContextStore, history_store
from ..errors import PersonaMemArgumentError
from .memory.embeddings import DEFAULT_EMBEDDER, CachedEmbedder, EmbeddingCache, default_cache_dir
from .memory.embeddings import embedder_for as make_embedder
from .memory.interface import MemoryFactory, MemoryItem
from .memory.pool import MemoryPool, Retrieval
from .memory.prompts import official_prompt, paper_prompt
from .memory.retrievers import BM25Retriever, DenseRetriever
from .system_messages import SystemMessagePolicy

Retriever = Literal["dense", "bm25"]
MemoryPrompt = Literal["official", "paper"]


@solver
def rag_solver(
    contexts_file: str | None,
    system_messages: SystemMessagePolicy = "keep",
    keep_history_in_log: bool = False,
    retriever: Retriever = "dense",
    embedder: str = DEFAULT_EMBEDDER,
    top_k: int = 5,
    memory_prompt: MemoryPrompt = "official",
    embedding_cache: str | None = None,
) -> Solver:
    """Retrieve the `top_k` history messages most similar to the question, then answer.

    Args:
        contexts_file: The split's shared-context JSONL (retrieval needs the history).
        system_messages: System messages among the retrieved ones (official prompt).
        keep_history_in_log: Leave the prompt's messages in `state.messages`.
        retriever: "dense" (embeddings, the paper's) or "bm25" (no model).
        embedder: retriever="dense": a sentence-transformers id or folder,
            `openai/<model>` or `openai-api/<service>/<model>`.
        top_k: Messages retrieved per question.
        memory_prompt: "official" or "paper" (see `prompts.py`).
        embedding_cache: Folder of the embedding cache; default: the user cache
            folder (PERSONAMEM_EMBEDDING_CACHE overrides); "none": no disk cache.
    """
    store = _required_store(contexts_file, "rag")
    _check_top_k(top_k)
    if retriever == "bm25":
        if embedder != DEFAULT_EMBEDDER:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter embedder={embedder!r} has no effect with "
                "retriever='bm25': leave it out"
            )
        return _memory_solver(
            store, lambda _: BM25Retriever(), "retriever bm25", None,
            system_messages, keep_history_in_log, top_k, memory_prompt,
        )  # fmt: skip
    cache = None if embedding_cache == "none" else EmbeddingCache(
        Path(embedding_cache) if embedding_cache else default_cache_dir()
    )  # fmt: skip
    embeddings = CachedEmbedder(make_embedder(embedder), cache)
    return _memory_solver(
        store, lambda _: DenseRetriever(embeddings), f"dense retriever ({embedder})",
        embeddings, system_messages, keep_history_in_log, top_k, memory_prompt,
    )  # fmt: skip


@solver
def memory_solver(
    contexts_file: str | None,
    system_messages: SystemMessagePolicy = "keep",
    keep_history_in_log: bool = False,
    memory: str | None = None,
    memory_config: str | None = None,
    top_k: int = 5,
    memory_prompt: MemoryPrompt = "official",
) -> Solver:
    """Ask a memory system, fed the history incrementally, for the `top_k` relevant items.

    Args:
        contexts_file: The split's shared-context JSONL.
        system_messages: System messages in the official prompt.
        keep_history_in_log: Leave the prompt's messages in `state.messages`.
        memory: "mem0", or "package.module:Factory" (a class or function taking
            `(context_id, config)`; see `interface.py`).
        memory_config: A YAML or JSON file whose mapping is passed as `config`.
        top_k: Items asked for per question.
        memory_prompt: "official" or "paper" (see `prompts.py`).
    """
    store = _required_store(contexts_file, "memory")
    _check_top_k(top_k)
    if not memory:
        raise PersonaMemArgumentError(
            "PersonaMem task parameter memory: method='memory' needs one: "
            "-T memory=mem0 or -T memory=package.module:Factory"
        )
    config = read_memory_config(memory_config)
    factory = memory_factory(memory, config)
    return _memory_solver(
        store, factory, f"memory system {memory}", None,
        system_messages, keep_history_in_log, top_k, memory_prompt,
    )  # fmt: skip


def memory_factory(spec: str, config: dict[str, Any]) -> MemoryFactory:
    """The factory a `-T memory=...` spec names: "mem0", or "module:attribute"."""
    if spec == "mem0":
        from .memory.mem0 import Mem0Memory

        return lambda context_id: Mem0Memory(context_id, config)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter memory={spec!r}: expected 'mem0' or "
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


def _required_store(contexts_file: str | None, method: str) -> ContextStore:
    store = history_store(contexts_file)
    if store is None:
        raise PersonaMemArgumentError(
            f"method={method!r} retrieves from the history, so history='none' does not "
            "apply (the no-history baseline is method='generate', history='none')"
        )
    return store


def _check_top_k(top_k: int) -> None:
    if top_k < 1:
        raise PersonaMemArgumentError(f"PersonaMem task parameter top_k={top_k}: at least 1 needed")


def _memory_solver(
    store: ContextStore,
    factory: MemoryFactory,
    component: str,
    embeddings: CachedEmbedder | None,
    system_messages: SystemMessagePolicy,
    keep_history_in_log: bool,
    top_k: int,
    memory_prompt: MemoryPrompt,
) -> Solver:
    pool = MemoryPool(store, factory, component)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        final_message = list(state.messages)
        context_id = str(state.metadata["shared_context_id"])
        question = str(state.metadata["user_question_or_message"])
        retrieval = await pool.retrieve(
            str(state.sample_id),
            context_id,
            int(state.metadata["end_index_in_shared_context"]),
            question,
            top_k,
        )
        if memory_prompt == "official":
            state.messages = official_prompt(
                retrieval.items, store.messages(context_id), final_message, system_messages
            )
        else:
            state.messages = paper_prompt(
                retrieval.items, store.messages(context_id), top_k, question,
                state.metadata["options"],
            )  # fmt: skip
        sent = len(state.messages)
        state.metadata["memory"] = _evidence(retrieval, embeddings, pool)
        state = await generate(state)
        if not keep_history_in_log:
            state.messages = final_message + state.messages[sent:]
        return state

    return solve


def _evidence(
    retrieval: Retrieval, embeddings: CachedEmbedder | None, pool: MemoryPool
) -> dict[str, Any]:
    return {
        "items": [_item_evidence(item) for item in retrieval.items],
        "visible_messages": retrieval.visible,
        "added_messages": retrieval.added,
        "rebuilt": retrieval.rebuilt is not None,
        "rebuilt_because": retrieval.rebuilt,
        "ingest_seconds": retrieval.ingest_seconds,
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
