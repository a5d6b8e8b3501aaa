"""PersonaMem-v2's answer patterns, in the authors' order."""

from __future__ import annotations

import pytest

from inspect_personamem.datasets.v2.extraction import ANSWER_PATTERNS, Reading, read_answer


@pytest.mark.parametrize(
    ("reply", "reading"),
    [
        ("Step by step... Final Answer: B", Reading("B", 2, "option")),
        ("So $\\boxed{c}$ it is. Final Answer: A", Reading("C", 0, "option")),
        ("\\boxed{D}", Reading("D", 1, "option")),
        ("final answer:   a", Reading("A", 2, "option")),  # case-insensitive
        ("The final answer is C", Reading("C", 7, "option")),
        ("I'd say the answer is b", Reading("B", 9, "option")),
        ("Hmm.\nB.\n", Reading("B", 10, "option")),
        ("Answer: the second one", Reading("T", 4, "not_an_option")),  # the known weakness
        ("No letter here", Reading(None, None, "none")),
    ],
)
def test_the_first_matching_pattern_gives_the_letter(reply: str, reading: Reading) -> None:
    assert read_answer(reply) == reading


def test_eleven_patterns_in_the_authors_order() -> None:
    assert len(ANSWER_PATTERNS) == 11
    assert ANSWER_PATTERNS[0] == r"\$\\boxed\{([A-Z])\}\$"
    assert ANSWER_PATTERNS[-1] == r"\b([A-Z])\.\s*$"
