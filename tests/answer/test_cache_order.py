"""Question order, the prompt-cache simulator and Anthropic cache breakpoints."""

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
from support.helpers import REAL_QUESTIONS, require
from support.servers.anthropic_api import USAGE, serve_messages

from inspect_personamem.answer.cache_breakpoints import with_cache_breakpoints
from inspect_personamem.cost.prompt_cache import (
    CacheSettings,
    Request,
    ideal_cached_tokens,
    simulate,
)
from inspect_personamem.data.contexts import open_context_store
from inspect_personamem.data.order import ORDERS, order_records, prefix_ends
from inspect_personamem.datasets.v1.cost import requests_for
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions

# two contexts; prefix tokens grow with the end index
REQUESTS = [
    Request("x", 100, 110),
    Request("x", 200, 210),
    Request("x", 300, 310),
    Request("y", 50, 60),
    Request("y", 80, 90),
]


def test_ideal_is_all_history_but_each_contexts_longest() -> None:
    assert ideal_cached_tokens(REQUESTS) == (100 + 200 + 300 - 300) + (50 + 80 - 80)


@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4], [2, 1, 0, 4, 3], [3, 0, 4, 2, 1]])
def test_one_request_at_a_time_reaches_the_ideal_in_any_order(order: list[int]) -> None:
    result = simulate([REQUESTS[i] for i in order], CacheSettings(1, 20.0, None))
    assert result.cached_tokens == ideal_cached_tokens(REQUESTS)
    assert result.input_tokens == 780


def test_siblings_in_flight_together_all_miss() -> None:
    result = simulate(REQUESTS, CacheSettings(concurrency=5, latency_s=20.0, ttl_s=None))
    assert result.cached_tokens == 0
    # two at a time: x1, x2 miss; x3 (t=20) reuses x2's 200; y1 misses; y2 (t=40) reuses y1
    two = simulate(REQUESTS, CacheSettings(concurrency=2, latency_s=20.0, ttl_s=None))
    assert two.cached_tokens == 200 + 50


def test_expired_entries_do_not_count() -> None:
    spaced = [Request("x", 100, 110), Request("z", 1, 1), Request("x", 200, 210)]
    kept = simulate(spaced, CacheSettings(1, 20.0, ttl_s=100.0))
    expired = simulate(spaced, CacheSettings(1, 20.0, ttl_s=10.0))
    assert kept.cached_tokens == 100 and expired.cached_tokens == 0


def records(tmp_path: Path) -> list[QuestionRecord]:
    questions, _ = generate_split(
        tmp_path, "32k", contexts=3, min_messages=40, max_messages=60, questions=12
    )
    return read_questions(questions, "32k")


def test_orders_are_permutations(tmp_path: Path) -> None:
    base = records(tmp_path)
    for order in ORDERS:
        ordered = order_records(base, order)
        assert sorted(r.question_id for r in ordered) == sorted(r.question_id for r in base)
    assert order_records(base, "file") == base
    assert order_records(base, "random") == order_records(base, "random") != base


def test_interleaved_is_round_robin_with_ascending_ends(tmp_path: Path) -> None:
    base = records(tmp_path)
    contexts = list(dict.fromkeys(r.context_id for r in base))
    ordered = order_records(base, "interleaved")
    assert [r.context_id for r in ordered[:3]] == contexts
    for context in contexts:
        ends = [r.end_index for r in ordered if r.context_id == context]
        assert ends == sorted(ends)
    grouped = order_records(base, "grouped")
    assert [r.context_id for r in grouped] == sorted(
        (r.context_id for r in base), key=contexts.index
    )


def test_interleaved_deals_contexts_into_blocks(tmp_path: Path) -> None:
    questions, _ = generate_split(
        tmp_path, "32k", contexts=25, min_messages=10, max_messages=14, questions=100
    )
    base = read_questions(questions, "32k")
    contexts = list(dict.fromkeys(r.context_id for r in base))
    assert len(contexts) == 25
    ordered = order_records(base, "interleaved", block=10)
    # two blocks (25 // 10): the 1st, 3rd, 5th... contexts, then the 2nd, 4th...
    blocks = [contexts[::2], contexts[1::2]]
    in_first = sum(r.context_id in blocks[0] for r in base)
    assert {r.context_id for r in ordered[:in_first]} == set(blocks[0])
    assert [r.context_id for r in ordered[:13]] == blocks[0]  # round-robin within a block
    assert [r.context_id for r in ordered[in_first : in_first + 12]] == blocks[1]
    everywhere = order_records(base, "interleaved", block=0)
    assert [r.context_id for r in everywhere[:25]] == contexts
    with pytest.raises(ValueError, match="interleave_block"):
        order_records(base, "interleaved", block=-1)


@pytest.mark.parametrize(
    ("concurrency", "latency"), [(32, 20.0), (10, 120.0), (4, 60.0), (2, 20.0)]
)
def test_default_order_keeps_the_ideal_share_on_the_real_32k_file(
    concurrency: int, latency: float
) -> None:
    real = read_questions(require(REAL_QUESTIONS), "32k")
    ideal = ideal_cached_tokens(requests_for(real))
    settings = CacheSettings(concurrency=concurrency, latency_s=latency, ttl_s=300.0)
    interleaved = simulate(requests_for(order_records(real, "interleaved")), settings)
    assert interleaved.cached_tokens >= 0.9 * ideal
    if concurrency == 32:
        grouped = simulate(requests_for(order_records(real, "grouped")), settings)
        assert grouped.cached_tokens < 0.5 * ideal
    else:  # a round across all 37 contexts would outlast the cache lifetime
        everywhere = simulate(requests_for(order_records(real, "interleaved", 0)), settings)
        assert everywhere.cached_tokens < interleaved.cached_tokens


def test_prefix_ends_are_own_end_then_shorter_sibling_ends(tmp_path: Path) -> None:
    base = records(tmp_path)
    ends = prefix_ends(base)
    for record in base:
        chosen = ends[record.question_id]
        siblings = sorted(
            {
                r.end_index
                for r in base
                if r.context_id == record.context_id and r.end_index < record.end_index
            },
            reverse=True,
        )
        assert chosen == ([record.end_index] + siblings)[:4]


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
            display="none",
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
        for end in metadata["cache_prefix_ends"]:
            index = end - 1
            while history[index].role == "system":
                index -= 1
            expected.append(history[index].text)
        assert sorted(marked_texts(request)) == sorted(expected)
    [usage] = log.stats.model_usage.values()
    assert usage.input_tokens_cache_read == USAGE["cache_read_input_tokens"] * len(samples)
    assert usage.input_tokens_cache_write == USAGE["cache_creation_input_tokens"] * len(samples)
