"""Test doubles for the memory methods: a tiny random sentence-transformers model,
memory systems that record or misbehave, and a split with a marker in every message."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.log import EvalLog

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.history.memory.interface import HistoryMessage, MemoryItem
from support.helpers import mock_model, run_task

WORDS = [
    "i",
    "you",
    "the",
    "a",
    "to",
    "and",
    "of",
    "like",
    "love",
    "food",
    "music",
    "travel",
    "book",
    "marker",
    "morning",
]


def tiny_sentence_transformer(folder: Path) -> Path:
    """A random 2-layer BERT with a WordPiece tokenizer, saved as a sentence-transformers
    model (mean pooling): built here, no download."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    letters = list("abcdefghijklmnopqrstuvwxyz0123456789")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *letters]
    vocab += [f"##{c}" for c in letters]
    ids = {word: i for i, word in enumerate(vocab)}
    wordpiece = Tokenizer(WordPiece(ids, unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=wordpiece,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    transformer_dir = folder / "bert"
    BertModel(config).save_pretrained(transformer_dir)
    tokenizer.save_pretrained(transformer_dir)
    word = Transformer(str(transformer_dir), max_seq_length=512)
    model = SentenceTransformer(
        modules=[word, Pooling(word.get_embedding_dimension(), "mean")], device="cpu"
    )
    model.save(str(folder / "st"))
    return folder / "st"


MARKER = re.compile(r"marker(\d+)x(\d+)")
"""A marker's context number and position, as `marker` writes them."""


def marker(context: int, position: int) -> str:
    return f"marker{context}x{position}"


def context_numbers(data: Path) -> dict[str, int]:
    """Each shared context's number (its line in the file), as its markers name it."""
    lines = (data / "shared_contexts_32k.jsonl").read_text(encoding="utf-8").splitlines()
    return {next(iter(json.loads(line))): n for n, line in enumerate(lines) if line.strip()}


def split_with_markers(folder: Path) -> Path:
    """A small 32k-shaped split whose every message ends with a unique marker word."""
    _, contexts = generate_split(
        folder, "32k", contexts=3, min_messages=30, max_messages=60, questions=24
    )
    lines = contexts.read_bytes().split(b"\n")
    out = []
    for number, line in enumerate(lines):
        if not line.strip():
            out.append(line)
            continue
        ((context_id, messages),) = json.loads(line).items()
        for position, message in enumerate(messages):
            message["content"] += f" marker {marker(number, position)}"
        out.append(json.dumps({context_id: messages}, ensure_ascii=False).encode())
    contexts.write_bytes(b"\n".join(out))
    return folder


class SpyMemory:
    """Records what it is given; its one search item says the highest position it holds."""

    instances: list[SpyMemory] = []

    def __init__(self, context_id: str, config: dict[str, Any]) -> None:
        self.context_id = context_id
        self.config = config
        self.positions: list[int] = []
        SpyMemory.instances.append(self)

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        assert messages[0].role == "system" or not self.positions or messages[0].position
        self.positions.extend(m.position for m in messages)

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        return [MemoryItem(text=f"held {max(self.positions, default=-1)}", score=1.0)]

    def usage(self) -> dict[str, int]:
        return {"llm_calls": len(self.positions)}


class FailingMemory(SpyMemory):
    """Fails on its second add."""

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        if len(self.positions) > 0:
            raise RuntimeError("store is down")
        await super().add(messages)


class MalformedMemory(SpyMemory):
    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        return [{"text": "not an item"}]  # type: ignore[list-item]


class WrongPositionMemory(SpyMemory):
    """Names the history position `config["position"]` ("end": the question's end index,
    an off-by-one), as a misbehaving plug-in might."""

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        position = self.config["position"]
        if position == "end":
            position = len(self.positions)
        return [MemoryItem(text="a message", position=position)]


class HugeItemMemory(SpyMemory):
    """Answers one item of 10 million characters."""

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        return [MemoryItem(text="x" * 10_000_000)]


class HangOnceMemory(SpyMemory):
    """The run's first memory takes its first messages, then hangs (until the question is
    cancelled); every later memory, of its context or another, behaves."""

    hung: set[str] = set()  # the context whose memory hung, once it has

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        await super().add(messages)
        if not HangOnceMemory.hung:
            HangOnceMemory.hung.add(self.context_id)
            await anyio.Event().wait()


class FakeClock:
    """A clock that moves only when told to, to stand in for `time.perf_counter`: what
    the pool measures with it is exact, and no test waits for real time to pass."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class BlockingMemory(SpyMemory):
    """Holds the event loop for `config["seconds"]` of `config["clock"]` (a `FakeClock`)
    in its search: a synchronous call, the clock moving while nothing else can run."""

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        self.config["clock"].advance(self.config["seconds"])
        return await super().search(query, top_k)


class YieldingMemory(SpyMemory):
    """Waits `config["seconds"]` of `config["clock"]` (a `FakeClock`) in its search without
    holding the event loop: the loop moves the clock while the search is suspended."""

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        asyncio.get_running_loop().call_soon(self.config["clock"].advance, self.config["seconds"])
        await asyncio.sleep(0)  # the loop runs the callback before resuming the search
        return await super().search(query, top_k)


class ClosingMemory(SpyMemory):
    """Records that it was closed."""

    closed: list[str] = []

    def close(self) -> None:
        ClosingMemory.closed.append(self.context_id)


class RecordingMemory(SpyMemory):
    """Keeps every text it is given, history and queries alike (`texts`), and how many
    times each message position of each context was added (`added`)."""

    texts: list[str] = []
    added: dict[tuple[str, int], int] = {}

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        await super().add(messages)
        for message in messages:
            RecordingMemory.texts.append(message.content)
            key = (self.context_id, message.position)
            RecordingMemory.added[key] = RecordingMemory.added.get(key, 0) + 1

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        RecordingMemory.texts.append(query)
        return await super().search(query, top_k)


class SleepingMemory(SpyMemory):
    """Sleeps `SLEEP` seconds in every add and every search (yielding the event loop),
    and names the history positions it holds, latest first: its wall time is known."""

    SLEEP = 0.05

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        await anyio.sleep(self.SLEEP)
        await super().add(messages)

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        await anyio.sleep(self.SLEEP)
        latest = sorted(self.positions, reverse=True)[:top_k]
        return [MemoryItem(text=f"message {p}", position=p) for p in latest]


class EvidenceMemory(SpyMemory):
    """Returns a question's evidence and nothing else, by history position: for
    PersonaMem, the generator's message stating the question (its words, then the
    marker) and the rest of its session; for PersonaMem-v2, the messages that
    `config["snippets"]` lists for the query (its row's snippet)."""

    def __init__(self, context_id: str, config: dict[str, Any]) -> None:
        super().__init__(context_id, config)
        self.messages: list[HistoryMessage] = []

    async def add(self, messages: Sequence[HistoryMessage]) -> None:
        await super().add(messages)
        self.messages.extend(messages)

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        snippets = self.config.get("snippets")
        found = (
            [m for m in self.messages if m.content in snippets[query]]
            if snippets is not None
            else self._session_stating(query)
        )
        return [MemoryItem(text=m.content, position=m.position) for m in found[:top_k]]

    def _session_stating(self, query: str) -> list[HistoryMessage]:
        """The message stating the question, then the other messages of its session."""
        stated = f"User: {query.removeprefix('User: ')} [evidence of question "
        [mark] = [m for m in self.messages if m.content.startswith(stated)]
        starts = [m.position for m in self.messages if m.role == "system"]
        start = max(s for s in starts if s <= mark.position)
        end = min((s for s in starts if s > mark.position), default=len(self.messages))
        return [mark, *(m for m in self.messages[start:end] if m is not mark)]


class LastMessageMemory(SpyMemory):
    """Names the last message it holds: the last before the question, which lies in the
    question's own session."""

    async def search(self, query: str, top_k: int) -> list[MemoryItem]:
        return [MemoryItem(text="the last message", position=max(self.positions))]


def run_mcp_memory(data: Path, log_dir: Path, config: dict[str, Any], **eval_args: Any) -> EvalLog:
    """A `history=memory -T memory=mcp` run of the 32k task on `data`, with `config`
    written to `log_dir/mcp.json`, on a model that always answers (a)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    task_args = {
        "data_dir": str(data), "history": "memory", "memory": "mcp",
        "memory_config": str(log_dir / "mcp.json"),
    }  # fmt: skip
    model = mock_model(lambda messages: "<final_answer>(a)")
    return run_task("inspect_personamem/personamem_32k", model, log_dir, task_args, **eval_args)
