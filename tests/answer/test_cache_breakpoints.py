"""Anthropic cache breakpoints (`answer/cache_breakpoints.py`): which messages carry
them, the request Inspect's provider builds, and a run against a stand-in of the API."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
)
from support.helpers import DISPLAY
from support.servers.anthropic_api import USAGE, serve_messages

from inspect_personamem.answer.cache_breakpoints import with_cache_breakpoints
from inspect_personamem.data.asked import AskedAt
from inspect_personamem.datasets.v1.contexts import open_context_store

HISTORY: list[ChatMessage] = [
    ChatMessageSystem(content="Persona"),
    ChatMessageUser(content="u1"),
    ChatMessageAssistant(content="a1"),
    ChatMessageSystem(content="Persona"),
    ChatMessageUser(content="u2"),
    ChatMessageAssistant(content="a2"),
]


def test_breakpoints_skip_system_messages_and_copy_only_marked_ones() -> None:
    marked = with_cache_breakpoints(HISTORY, [6, 4])
    assert [m is h for m, h in zip(marked, HISTORY, strict=True)] == [
        True, True, False, True, True, False,
    ]  # fmt: skip
    assert marked[2].text == "a1" and marked[5].text == "a2"
    assert HISTORY[2].content == "a1"  # the shared original is untouched


def test_anthropic_request_carries_the_breakpoints() -> None:
    from inspect_ai.model._providers.anthropic import AnthropicAPI

    api = AnthropicAPI(model_name="claude-sonnet-4-5", api_key="offline")
    marked = with_cache_breakpoints(HISTORY, [6, 4])
    resolved: Any = asyncio.run(
        api.resolve_chat_input([*marked, ChatMessageUser(content="Q")], [], GenerateConfig(), None)
    )
    messages = resolved[3]
    flagged = [
        block["text"]
        for message in messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if "cache_control" in block
    ]
    assert flagged == ["a1", "a2"]


def marked_texts(request: dict[str, Any]) -> list[str]:
    """Texts of the message blocks that carry an explicit cache breakpoint."""
    return [
        block["text"]
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if "cache_control" in block
    ]


@pytest.mark.slow
def test_anthropic_run_sends_the_breakpoints_and_logs_the_cache_usage(
    small_split: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: solver, Inspect's anthropic/ provider and the real client, against a
    local stand-in of the Messages API."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "offline")
    requests: list[dict[str, Any]] = []
    with serve_messages("<final_answer>(a)", requests) as base_url:
        [log] = inspect_eval(
            "inspect_personamem/personamem_32k",
            task_args={"data_dir": str(small_split)},
            model="anthropic/claude-sonnet-4-5",
            model_base_url=base_url,
            model_args={"streaming": False},
            max_tokens=50,
            log_dir=str(tmp_path / "logs"),
            display=DISPLAY,
        )
    assert log.status == "success", log.error
    samples = log.samples or []
    assert len(requests) == len(samples) == 24
    store = open_context_store((small_split / "shared_contexts_32k.jsonl").resolve())
    by_question = {str(sample.input): sample for sample in samples}
    for request in requests:
        assert "cache_control" not in request  # no automatic top-level breakpoint
        assert json.dumps(request).count('"cache_control"') <= 4  # Anthropic's limit
        content = request["messages"][-1]["content"]  # the question, after any merged turn
        last = content if isinstance(content, str) else content[-1]["text"]
        # (a system message just before it comes as a reminder in front of it)
        [metadata] = [
            sample.metadata for text, sample in by_question.items() if last.endswith(text)
        ]
        history = store.history(
            metadata["shared_context_id"], metadata["end_index_in_shared_context"]
        )
        expected = []
        for end in AskedAt.of(metadata).cache_prefix_ends:
            index = end - 1
            while history[index].role == "system":
                index -= 1
            expected.append(history[index].text)
        assert sorted(marked_texts(request)) == sorted(expected)
    [usage] = log.stats.model_usage.values()
    assert usage.input_tokens_cache_read == USAGE["cache_read_input_tokens"] * len(samples)
    assert usage.input_tokens_cache_write == USAGE["cache_creation_input_tokens"] * len(samples)
