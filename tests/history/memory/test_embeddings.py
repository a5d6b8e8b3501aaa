"""Dense embeddings: the embedder a spec names, and the cache that embeds each distinct
text once, as unit vectors (`memory/embeddings.py`; the on-disk cache's key:
test_retrievers.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.history.memory.embeddings import (
    CachedEmbedder,
    EmbeddingCache,
    EmbeddingCounts,
    OpenAIEmbedder,
    embedder_for,
)
from inspect_personamem.history.memory.interface import MemoryComponentError


class Fixed:
    """An embedder that returns the vectors it is given, one per text, and counts calls."""

    name = "fixed"

    def __init__(self, vectors: dict[str, list[float]], extra: int = 0) -> None:
        self.vectors, self.extra = vectors, extra
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [self.vectors[text] for text in texts] + [[1.0, 0.0]] * self.extra
        return np.asarray(rows, dtype=np.float32)


def test_openai_specs_name_the_endpoint_and_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai.test/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-1")
    monkeypatch.setenv("MY_TEI_BASE_URL", "http://tei.test/v1")
    monkeypatch.delenv("MY_TEI_API_KEY", raising=False)
    openai = embedder_for("openai/text-embedding-3-small")
    assert isinstance(openai, OpenAIEmbedder)
    assert openai.name == "openai-compatible:http://openai.test/v1:text-embedding-3-small"
    assert openai.headers == {"Authorization": "Bearer sk-1"}
    served = embedder_for("openai-api/my-tei/bge")
    assert isinstance(served, OpenAIEmbedder)
    assert (served.base_url, served.model, served.headers) == ("http://tei.test/v1", "bge", {})


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("  ", "embedder='': name a model"),
        ("openai-api/other/bge", "expected openai-api/<service>/<model> with OTHER_BASE_URL set"),
        ("openai-api/my-tei", "expected openai-api/<service>/<model> with MY_TEI_BASE_URL set"),
    ],
)
def test_a_spec_that_names_no_reachable_embedder_is_refused(
    spec: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_TEI_BASE_URL", "http://tei.test/v1")
    monkeypatch.delenv("OTHER_BASE_URL", raising=False)
    with pytest.raises(PersonaMemArgumentError, match=problem.replace("'", ".")):
        embedder_for(spec)


def test_each_distinct_text_is_embedded_once_as_a_unit_vector(tmp_path: Path) -> None:
    inner = Fixed({"a": [3.0, 4.0], "b": [0.0, 0.0], "c": [0.0, 2.0]})
    cached = CachedEmbedder(inner, EmbeddingCache(tmp_path))
    first = asyncio.run(cached.embed(["a", "b", "a"]))
    np.testing.assert_allclose(first, [[0.6, 0.8], [0.0, 0.0], [0.6, 0.8]], rtol=1e-6)  # 0 stays 0
    second = asyncio.run(cached.embed(["c", "a"]))
    np.testing.assert_allclose(second, [[0.0, 1.0], [0.6, 0.8]], rtol=1e-6)
    assert inner.calls == [["a", "b"], ["c"]]
    assert cached.counts == EmbeddingCounts(requested=5, distinct=3, embedded=3, calls=2)
    # another process: every text from the disk, none embedded
    again = CachedEmbedder(Fixed({}), EmbeddingCache(tmp_path))
    assert asyncio.run(again.embed(["c", "a"])).tolist() == second.tolist()
    assert again.counts == EmbeddingCounts(requested=2, distinct=2, cache_hits=2)


def test_an_embedder_that_returns_more_vectors_than_texts_is_named() -> None:
    cached = CachedEmbedder(Fixed({"a": [1.0, 0.0]}, extra=1), None)
    with pytest.raises(MemoryComponentError, match="embedder fixed: 2 vectors for 1 texts"):
        asyncio.run(cached.embed(["a"]))
