"""Dense embeddings for retrieval: the models, and a cache so that no text is embedded twice.

An embedder spec (`-T embedder=...`) names one of:

- a sentence-transformers model: a hub id (default `BAAI/bge-m3`, the paper's) or a
  local folder, run in this process (`device` picks the torch device);
- `openai/<model>`: OpenAI's `/v1/embeddings` (`OPENAI_API_KEY`, `OPENAI_BASE_URL`);
- `openai-api/<service>/<model>`: any OpenAI-compatible `/v1/embeddings` endpoint
  (a vLLM, TEI or other server) at `<SERVICE>_BASE_URL` with `<SERVICE>_API_KEY`,
  as Inspect names OpenAI-compatible model providers.

Vectors are L2-normalised here whatever the model returns, so similarity is a dot
product of unit vectors (the paper's). `CachedEmbedder` embeds each distinct text
once per model, in batches, and keeps the vectors on disk (SQLite, keyed by the
embedder's `name`, which holds everything that changes a vector: the model and, for
local models, the truncation length; and the text's SHA-256), so a second run embeds
nothing it already has.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
import httpx
import numpy as np
import platformdirs

from inspect_personamem.data.files import hub_offline, unreachable_hub
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.interface import MemoryComponentError
from inspect_personamem.http_client import async_client

MAX_TOKENS = 512
"""Texts are cut at 512 tokens, as the authors' encoder (FlagEmbedding's `encode`) cut them."""

CACHE_ENV = "PERSONAMEM_EMBEDDING_CACHE"
"""Environment variable naming the embedding cache folder."""


def default_cache_dir() -> Path:
    """Where embeddings are kept: PERSONAMEM_EMBEDDING_CACHE, else the user cache folder
    (`platformdirs`: ~/.cache/inspect_personamem/embeddings on Linux)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    return Path(platformdirs.user_cache_dir("inspect_personamem")) / "embeddings"


class Embedder(Protocol):
    """Texts to vectors (one row per text)."""

    name: str
    """Identifies the model in the cache: the same name must give the same vectors."""

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model (hub id or local folder), loaded on first use."""

    def __init__(self, model: str, device: str | None = None, batch_size: int = 32) -> None:
        # the cache key: everything on this side that changes a vector
        self.name = f"sentence-transformers:{model}:max_tokens={MAX_TOKENS}"
        self.model_id = model
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()  # one model, one encode at a time

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as ex:
                    raise MemoryComponentError(
                        "the dense retriever with a local model needs sentence-transformers: "
                        "pip install 'inspect-personamem[memory]'"
                    ) from ex
                try:
                    self._model = SentenceTransformer(self.model_id, device=self.device)
                    self._model.max_seq_length = min(
                        self._model.max_seq_length or MAX_TOKENS, MAX_TOKENS
                    )
                except Exception as ex:
                    raise MemoryComponentError(
                        f"embedder {self.model_id!r}: cannot load it as a sentence-transformers "
                        f"model (a hub id or a local folder): {type(ex).__name__}: {ex}"
                    ) from ex
            vectors = self._model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True
            )
        return np.asarray(vectors, dtype=np.float32)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return await anyio.to_thread.run_sync(self._encode, texts)


class OpenAIEmbedder:
    """An OpenAI-compatible `/embeddings` endpoint."""

    def __init__(
        self, model: str, base_url: str, api_key: str | None, batch_size: int = 256
    ) -> None:
        self.name = f"openai-compatible:{base_url.rstrip('/')}:{model}"
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.batch_size = batch_size
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        async with async_client(timeout=300.0) as client:
            for start in range(0, len(texts), self.batch_size):
                batch = list(texts[start : start + self.batch_size])
                rows += await self._request(client, batch)
        return _normalised(np.asarray(rows, dtype=np.float32))

    async def _request(self, client: httpx.AsyncClient, batch: list[str]) -> list[list[float]]:
        url = f"{self.base_url}/embeddings"
        self.calls += 1
        try:
            response = await client.post(
                url, json={"model": self.model, "input": batch}, headers=self.headers
            )
        except httpx.HTTPError as ex:
            raise MemoryComponentError(f"embedder {url}: {type(ex).__name__}: {ex}") from ex
        if response.status_code != 200:
            raise MemoryComponentError(
                f"embedder {url}: HTTP {response.status_code}: {response.text[:300]}"
            )
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = [list(map(float, item["embedding"])) for item in data]
        except (ValueError, KeyError, TypeError) as ex:
            raise MemoryComponentError(f"embedder {url}: not an embeddings answer ({ex})") from ex
        if len(vectors) != len(batch):
            raise MemoryComponentError(
                f"embedder {url}: {len(vectors)} embeddings for {len(batch)} texts"
            )
        return vectors


def embedder_for(spec: str, device: str | None = None) -> Embedder:
    """The embedder a `-T embedder=...` spec names (see the module docstring)."""
    if not spec.strip():
        raise PersonaMemArgumentError("PersonaMem task parameter embedder='': name a model")
    if spec.startswith("openai/"):
        base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
        return OpenAIEmbedder(spec.removeprefix("openai/"), base_url, _key("OPENAI_API_KEY"))
    if spec.startswith("openai-api/"):
        service, _, model = spec.removeprefix("openai-api/").partition("/")
        prefix = service.upper().replace("-", "_")
        service_url = os.environ.get(f"{prefix}_BASE_URL")
        if not service or not model or not service_url:
            raise PersonaMemArgumentError(
                f"PersonaMem task parameter embedder={spec!r}: expected "
                f"openai-api/<service>/<model> with {prefix or '<SERVICE>'}_BASE_URL set"
            )
        return OpenAIEmbedder(model, service_url, _key(f"{prefix}_API_KEY"))
    check_loadable(spec)
    return SentenceTransformerEmbedder(spec, device=device)


def check_loadable(model: str) -> None:
    """Fail at once, before any sample, where a sentence-transformers model can be had
    neither from a folder, nor from the hub's local cache, nor from the hub (offline,
    `HF_HUB_OFFLINE=1`, or its host unreachable): loading it would retry for minutes.
    """
    if Path(model).is_dir():
        return
    from huggingface_hub import snapshot_download

    try:
        snapshot_download(model, local_files_only=True)
        return
    except Exception:  # not in the cache: the hub is needed
        pass
    why = "HF_HUB_OFFLINE is set" if hub_offline() else unreachable_hub()
    if why:
        raise PersonaMemArgumentError(
            f"PersonaMem task parameter embedder={model!r}: not a folder and not in the "
            f"Hugging Face cache, and the hub cannot be reached ({why}). Pass a local "
            "sentence-transformers folder (-T embedder=/path/to/model), an embedding server "
            "(-T embedder=openai-api/<service>/<model> with <SERVICE>_BASE_URL), or "
            "-T retriever=bm25 (no model)"
        )


def _key(variable: str) -> str | None:
    return os.environ.get(variable) or None


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class EmbeddingCache:
    """Vectors on disk, keyed by model name and the SHA-256 of the text."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "embeddings.sqlite"
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors "
            "(model TEXT, text_sha256 BLOB, vector BLOB, PRIMARY KEY (model, text_sha256))"
        )
        self._db.commit()
        self._lock = threading.Lock()

    def get(self, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                rows = self._db.execute(
                    "SELECT text_sha256, vector FROM vectors WHERE model = ? AND text_sha256 IN "
                    f"({','.join('?' * len(chunk))})",
                    [model, *chunk],
                ).fetchall()
                found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows)
        return found

    def put(self, model: str, entries: dict[bytes, np.ndarray]) -> None:
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [
                    (model, key, vector.astype(np.float32).tobytes())
                    for key, vector in entries.items()
                ],
            )
            self._db.commit()


@dataclass
class EmbeddingCounts:
    """Texts asked for, and how many of them a model had to embed."""

    requested: int = 0
    distinct: int = 0
    embedded: int = 0
    cache_hits: int = 0
    calls: int = 0


@dataclass
class CachedEmbedder:
    """An embedder behind the on-disk cache (and an in-process one): each distinct text
    is embedded once per model."""

    embedder: Embedder
    cache: EmbeddingCache | None
    counts: EmbeddingCounts = field(default_factory=EmbeddingCounts)
    _memory: dict[bytes, np.ndarray] = field(default_factory=dict)
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for `texts`, one row each."""
        async with self._lock:  # two contexts never embed the same new text twice
            return await self._embed(texts)

    async def _embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha256(text.encode("utf-8")).digest() for text in texts]
        self.counts.requested += len(texts)
        missing = {key: text for key, text in zip(keys, texts, strict=True)}
        missing = {k: t for k, t in missing.items() if k not in self._memory}
        self.counts.distinct += len(missing)
        if missing and self.cache is not None:
            found = self.cache.get(self.embedder.name, list(missing))
            self.counts.cache_hits += len(found)
            self._memory.update(found)
            missing = {k: t for k, t in missing.items() if k not in found}
        if missing:
            vectors = await self.embedder.embed(list(missing.values()))
            if vectors.shape[0] != len(missing):
                raise MemoryComponentError(
                    f"embedder {self.embedder.name}: {vectors.shape[0]} vectors for "
                    f"{len(missing)} texts"
                )
            fresh = dict(zip(missing, _normalised(vectors), strict=True))
            self.counts.embedded += len(fresh)
            self.counts.calls += 1
            self._memory.update(fresh)
            if self.cache is not None:
                self.cache.put(self.embedder.name, fresh)
        return np.stack([self._memory[key] for key in keys]) if keys else np.zeros((0, 0))
