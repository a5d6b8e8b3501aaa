from __future__ import annotations

from inspect_personamem.data.options import shuffled_order


def test_shuffled_order_is_deterministic_per_question_and_seed() -> None:
    assert shuffled_order(1, "q1", 4) == shuffled_order(1, "q1", 4)
    assert sorted(shuffled_order(1, "q1", 4)) == [0, 1, 2, 3]
    orders = {shuffled_order(seed, "q1", 4) for seed in range(30)}
    assert len(orders) > 5
    assert {shuffled_order(7, f"q{i}", 4) for i in range(30)} != {shuffled_order(7, "q0", 4)}
