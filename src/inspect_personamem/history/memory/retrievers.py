"""The built-in RAG memories: retrieval over the history's messages (paper §4.4).

Candidates are exactly the messages the pool has added: `context[:end_index]`.

- `dense` (the paper's): each message is embedded as its role and content together,
  `json.dumps({"role": ..., "content": ...})` (the authors' encoder), the question
  (`AskedAt.message`) alone; the score is the dot product of the unit
  vectors; the `top_k` highest are kept, most similar first.
- `bm25`: BM25 over the messages' content, lower-cased word tokens; no model needed.
  Lucene's variant with k1 = 1.5 and b = 0.75, the scores of the `bm25s` package
  (a test holds the two equal). It is computed here rather than by `bm25s`, whose
  index is built once for a fixed corpus: rebuilt after each question's new messages
  it cost 0.3-0.4 s a question at the 1M shape (`benchmarks/memory_ingestion.py`).
  Here each message adds to the postings of its words, and a search reads only the
  postings of the question's words.

Ties go to the earlier message, so retrieval is deterministic.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from inspect_personamem.history.memory.embeddings import CachedEmbedder
from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem

_WORD = re.compile(r"\w+")


def embedded_text(message: HistoryMessage) -> str:
    """What the dense retriever embeds for a message: its role and content as JSON."""
    return json.dumps({"role": message.role, "content": message.content})


def _top(scores: np.ndarray, top_k: int) -> list[int]:
    order = np.lexsort((np.arange(len(scores)), -scores))  # highest first, then earliest
    return [int(i) for i in order[:top_k]]


class DenseRetriever:
    """Messages ranked by embedding similarity to the question."""

    def __init__(self, embedder: CachedEmbedder) -> None:
        self.embedder = embedder
        self.messages: list[HistoryMessage] = []
        self._vectors: list[np.ndarray] = []

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        vectors = await self.embedder.embed([embedded_text(m) for m in messages])
        self.messages.extend(messages)
        self._vectors.extend(vectors)

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        if not self.messages:
            return []
        question = (await self.embedder.embed([query]))[0]
        scores = np.stack(self._vectors) @ question
        return [_item(self.messages[i], float(scores[i])) for i in _top(scores, top_k)]


class BM25Retriever:
    """Messages ranked by BM25 against the question's words, the index grown message by
    message."""

    K1 = 1.5
    B = 0.75

    def __init__(self) -> None:
        self.messages: list[HistoryMessage] = []
        self._lengths: list[int] = []
        self._postings: dict[str, tuple[list[int], list[int]]] = {}
        """word -> (messages holding it, its count in each)"""

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        for message in messages:
            counts = Counter(_words(message.content))
            number = len(self.messages)
            self.messages.append(message)
            self._lengths.append(sum(counts.values()))
            for word, count in counts.items():
                holders, frequencies = self._postings.setdefault(word, ([], []))
                holders.append(number)
                frequencies.append(count)

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        if not self.messages:
            return []
        total = len(self.messages)
        lengths = np.asarray(self._lengths, dtype=np.float64)
        norms = self.K1 * (1 - self.B + self.B * lengths / (lengths.mean() or 1.0))
        scores = np.zeros(total)
        for word in _words(query):  # a word asked twice counts twice, as in bm25s
            if word not in self._postings:
                continue
            holders, frequencies = (np.asarray(x) for x in self._postings[word])
            idf = math.log(1 + (total - len(holders) + 0.5) / (len(holders) + 0.5))
            scores[holders] += idf * frequencies / (frequencies + norms[holders])
        return [_item(self.messages[i], float(scores[i])) for i in _top(scores, top_k)]


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _item(message: HistoryMessage, score: float) -> MemoryItem:
    return MemoryItem(text=embedded_text(message), score=score, position=message.position)
