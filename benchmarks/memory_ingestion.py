"""Ingestion and retrieval per question for `history=rag`, at each split's shape:
the incremental pool (this package) against a memory rebuilt for every question
(the authors' baselines), side by side in one run.

For each shape (synthetic files with the real splits' shapes, `synthetic.SHAPES`),
the questions of the first `--contexts` contexts are answered in ascending end index
through `memory.pool.MemoryPool`, the code the task runs:

- `incremental`: one memory per context; before each question only the messages
  since the previous one are added;
- `rebuild`: a new memory for every question, built from `context[:end_index]`
  (for `dense`, with a new embedder cache too: each question embeds its whole
  visible history, as the authors' scripts did).

Retrievers: `bm25` (`bm25s`) and `dense`, whose embeddings come from a stand-in of
an OpenAI-compatible `/v1/embeddings` endpoint on loopback (`tests/support/servers/openai_api.py`:
hashed bag-of-words vectors, no model), so the times are this package's and the
transport's, not a model's; the texts-embedded column is what a real model would
have to embed. Printed per design: messages added, texts embedded, and ingestion,
search and total seconds per question.

    PYTHONPATH=src python benchmarks/memory_ingestion.py [--shapes 32k 128k 1M] [--contexts 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.servers.openai_api import serve_openai  # noqa: E402  (the tests' stand-in)

from inspect_personamem.data.order import order_records  # noqa: E402
from inspect_personamem.datasets.v1.contexts import ContextStore, open_context_store  # noqa: E402
from inspect_personamem.datasets.v1.generator import generate_shape  # noqa: E402
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions  # noqa: E402
from inspect_personamem.datasets.v1.splits import check_split  # noqa: E402
from inspect_personamem.history.memory.embeddings import CachedEmbedder, embedder_for  # noqa: E402
from inspect_personamem.history.memory.interface import MemorySystem  # noqa: E402
from inspect_personamem.history.memory.pool import MemoryPool  # noqa: E402
from inspect_personamem.history.memory.retrievers import BM25Retriever, DenseRetriever  # noqa: E402

Factory = Callable[[], Callable[[str], MemorySystem]]
"""A new run's memory factory (a new embedder cache for `dense`)."""


@dataclass
class Measured:
    questions: int = 0
    added: int = 0
    embedded: int = 0
    ingest: float = 0.0
    search: float = 0.0
    wall: float = 0.0


def factories(retriever: str) -> tuple[Factory, list[CachedEmbedder]]:
    """The memory factory of a run, and the embedders it made (for their counts)."""
    made: list[CachedEmbedder] = []

    def new_run() -> Callable[[str], MemorySystem]:
        if retriever == "bm25":
            return lambda _context_id: BM25Retriever()
        embedder = CachedEmbedder(embedder_for("openai/stand-in"), cache=None)
        made.append(embedder)
        return lambda _context_id: DenseRetriever(embedder)

    return new_run, made


async def measure(
    store: ContextStore, questions: list[QuestionRecord], retriever: str, rebuild: bool
) -> Measured:
    new_run, embedders = factories(retriever)
    result = Measured(questions=len(questions))
    pool = MemoryPool(store, new_run(), retriever)
    start = time.perf_counter()
    for record in questions:
        if rebuild:
            pool = MemoryPool(store, new_run(), retriever)
        found = await pool.retrieve(
            record.question_id, record.context_id, record.end_index, record.question, 5
        )
        result.added += found.added
        result.ingest += found.ingest_seconds
        result.search += found.search_seconds
    result.wall = time.perf_counter() - start
    result.embedded = sum(embedder.counts.embedded for embedder in embedders)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="+", default=["32k", "128k", "1M"])
    parser.add_argument("--contexts", type=int, default=1, help="contexts measured per shape")
    parser.add_argument("--retrievers", nargs="+", default=["bm25", "dense"])
    args = parser.parse_args()
    print(
        "| shape | retriever | design | questions | messages added | texts embedded "
        "| ingest s/question | search s/question | total s/question | rebuild / incremental |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    with serve_openai() as (url, requests), tempfile.TemporaryDirectory() as tmp:
        os.environ["OPENAI_BASE_URL"] = url
        for name in args.shapes:
            split = check_split(name)
            questions_file, contexts_file = generate_shape(Path(tmp) / split, split)
            store = open_context_store(contexts_file)
            records = order_records(read_questions(questions_file, split), "grouped")
            chosen = list(dict.fromkeys(r.context_id for r in records))[: args.contexts]
            asked = [r for r in records if r.context_id in chosen]
            for retriever in args.retrievers:
                runs = {
                    design: anyio.run(measure, store, asked, retriever, design == "rebuild")
                    for design in ("incremental", "rebuild")
                }
                requests.clear()  # the stand-in keeps every request body
                for design, run in runs.items():
                    per = run.questions
                    ratio = run.wall / runs["incremental"].wall
                    print(
                        f"| {split} | {retriever} | {design} | {per} | {run.added} | "
                        f"{run.embedded} | {run.ingest / per:.4f} | {run.search / per:.4f} | "
                        f"{run.wall / per:.4f} | {ratio:.1f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
