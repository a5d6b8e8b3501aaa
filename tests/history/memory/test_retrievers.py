"""The BM25 retriever scores as the `bm25s` package does, while its index grows."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np
import pytest

from inspect_personamem.history.memory import embeddings
from inspect_personamem.history.memory.embeddings import (
    CachedEmbedder,
    EmbeddingCache,
    SentenceTransformerEmbedder,
)
from inspect_personamem.history.memory.interface import HistoryMessage
from inspect_personamem.history.memory.retrievers import BM25Retriever, _words


def corpus(size: int, seed: int) -> list[HistoryMessage]:
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(300)]
    return [
        HistoryMessage(
            i, "user", " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 60)))
        )
        for i in range(size)
    ]


def reference_scores(messages: list[HistoryMessage], query: str) -> np.ndarray:
    index = bm25s.BM25()  # Lucene's variant, k1 = 1.5, b = 0.75
    index.index([_words(m.content) for m in messages], show_progress=False)
    known = [w for w in _words(query) if w in index.vocab_dict]
    return np.asarray(index.get_scores(known), dtype=np.float64)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bm25_scores_equal_bm25s_as_messages_arrive(seed: int) -> None:
    messages = corpus(400, seed)
    retriever = BM25Retriever()
    rng = random.Random(seed)
    added = 0
    for step in (1, 7, 50, 400):
        asyncio.run(retriever.add(messages[added:step]))
        added = step
        query = " ".join(rng.choice(messages[:step]).content.split()[:5]) + " w3 w3 unseen"
        found = asyncio.run(retriever.search(query, step))
        expected = reference_scores(messages[:step], query)
        scores = np.zeros(step)
        for item in found:
            assert item.position is not None and item.score is not None
            scores[item.position] = item.score
        np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-6)
        order = [item.position for item in found]
        assert order == sorted(order, key=lambda i: (-scores[i], i))


def test_bm25_with_no_word_in_common_returns_the_earliest() -> None:
    retriever = BM25Retriever()
    asyncio.run(retriever.add(corpus(10, 0)))
    found = asyncio.run(retriever.search("nothing shared", 3))
    assert [(item.position, item.score) for item in found] == [(0, 0.0), (1, 0.0), (2, 0.0)]


def test_the_embedding_cache_key_holds_the_truncation_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vectors embedded under one truncation length are not served under another."""

    class Counting:
        def __init__(self) -> None:
            self.name = SentenceTransformerEmbedder("some/model").name
            self.texts: list[str] = []

        async def embed(self, texts: Sequence[str]) -> np.ndarray:
            self.texts += texts
            return np.ones((len(texts), 3), dtype=np.float32)

    cache = EmbeddingCache(tmp_path)
    first = Counting()
    asyncio.run(CachedEmbedder(first, cache).embed(["a", "b"]))
    again = Counting()
    asyncio.run(CachedEmbedder(again, cache).embed(["a", "b"]))
    assert (first.texts, again.texts) == (["a", "b"], [])  # same key: from the cache
    monkeypatch.setattr(embeddings, "MAX_TOKENS", 256)
    shorter = Counting()
    asyncio.run(CachedEmbedder(shorter, cache).embed(["a", "b"]))
    assert shorter.texts == ["a", "b"]
