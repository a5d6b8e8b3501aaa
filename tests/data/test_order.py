"""The orders questions are sent in (`data/order.py`), and what each leaves of the
prompt cache on the real 32k file."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.helpers import REAL_QUESTIONS, require

from inspect_personamem.cost.prompt_cache import CacheSettings, ideal_cached_tokens, simulate
from inspect_personamem.data.order import ORDERS, order_records, prefix_ends
from inspect_personamem.datasets.v1.cost import requests_for
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions


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
