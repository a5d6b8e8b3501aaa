"""Memory stays flat in the number of questions: no sample holds a copy of its history."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from inspect_ai.model import ChatMessageBase

from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.run.tasks import TASKS


def test_building_all_samples_copies_no_history(tmp_path: Path) -> None:
    questions, contexts = generate_split(
        tmp_path, "128k", contexts=3, min_messages=200, max_messages=260, questions=90
    )
    task = TASKS["personamem"](split="128k", data_dir=str(tmp_path))
    store = open_context_store(contexts.resolve())
    samples = list(task.dataset)
    assert len(samples) == 90

    objects: set[int] = set()
    history_chars = 0
    longest: dict[str, int] = {}
    for sample in samples:
        meta = sample.metadata or {}
        history = store.history(meta["shared_context_id"], meta["end_index_in_shared_context"])
        objects.update(id(message) for message in history)
        history_chars += sum(len(message.text) for message in history)
        context = meta["shared_context_id"]
        longest[context] = max(longest.get(context, 0), len(history))
        # the input is the final user message alone: a string, no messages
        assert isinstance(sample.input, str)
        assert not any(
            isinstance(item, ChatMessageBase)
            for value in meta.values()
            if isinstance(value, list)
            for item in value
        )

    # every history is a slice of one shared list: as many objects as the longest
    # history of each context, however many questions use them
    assert len(objects) == sum(longest.values())
    assert sum(len(str(s.input)) for s in samples) < 0.05 * history_chars


def test_samples_take_memory_for_their_metadata_not_their_histories(tmp_path: Path) -> None:
    """Measured: with the contexts parsed, building the task allocates per sample a small
    fraction of the text of its history (a copy per sample would be at least as much)."""
    _, contexts = generate_split(
        tmp_path, "128k", contexts=3, min_messages=200, max_messages=260, questions=90
    )
    store = open_context_store(contexts.resolve())
    TASKS["personamem"](split="128k", data_dir=str(tmp_path))  # parses the contexts into the store
    tracemalloc.start()
    try:
        task = TASKS["personamem"](split="128k", data_dir=str(tmp_path))
        built, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    samples = list(task.dataset)
    history_bytes = sum(
        len(message.text.encode())
        for sample in samples
        for message in store.history(
            (sample.metadata or {})["shared_context_id"],
            (sample.metadata or {})["end_index_in_shared_context"],
        )
    )
    assert built < 0.25 * history_bytes
