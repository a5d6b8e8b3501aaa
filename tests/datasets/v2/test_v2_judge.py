"""The PersonaMem-v2 authors' judge: prompts exact, chosen and filled as they do, scores
read by their rule."""

from __future__ import annotations

import hashlib

import pytest

from inspect_personamem.datasets.v2.judge import (
    JUDGE_PROMPT_NARROW_NEGATIVE,
    JUDGE_PROMPT_NARROW_POSITIVE,
    NEGATIVE_SHA256,
    POSITIVE_SHA256,
    judge_prompt,
    judge_score,
)


def test_the_prompts_are_the_authors_character_for_character() -> None:
    """The digests two independent third-party copies of the authors' prompts pin."""
    assert hashlib.sha256(JUDGE_PROMPT_NARROW_POSITIVE.encode()).hexdigest() == POSITIVE_SHA256
    assert hashlib.sha256(JUDGE_PROMPT_NARROW_NEGATIVE.encode()).hexdigest() == NEGATIVE_SHA256
    pair = f"{JUDGE_PROMPT_NARROW_POSITIVE}\n{JUDGE_PROMPT_NARROW_NEGATIVE}"
    assert hashlib.sha256(pair.encode()).hexdigest() == (
        "b2ca516e66ffa8571ed5e5300c2506a2ac241f1e5b3c67014c18ea86ea838c7a"
    )


@pytest.mark.parametrize(
    ("preference", "negative"),
    [
        ("Do not bring up my divorce.", True),
        ("DO NOT mention it", True),
        ("do not", True),
        (" do not mention it", False),  # not stripped, as the authors do not
        ("Don't mention it", False),
        ("Likes jazz", False),
    ],
)
def test_which_prompt(preference: str, negative: bool) -> None:
    prompt = judge_prompt("Any plans?", preference, "Try jazz.")
    assert ('"do not personalize"' in prompt) is negative
    assert prompt.endswith("between 0.0 and 1.0.\nYour response:")
    assert "\\boxed{score}" in prompt
    assert f"Ground truth user preference: {preference}\n" in prompt
    assert "User's query:\nAny plans?\n\n" in prompt and "evaluate:\nTry jazz.\n\n" in prompt


@pytest.mark.parametrize(
    ("answer", "score", "read"),
    [
        ("Reasoning. \\boxed{0.8}", 0.8, True),
        ("$\\boxed{1}$", 1.0, True),
        ("\\boxed{1.5}", 1.0, True),  # clamped
        ("\\boxed {0.2}", 0.2, True),
        ("\\boxed{0.3} then \\boxed{0.9}", 0.3, True),  # the first match
        ("Final score: 0.7", 0.7, True),
        ("Rating: 0.4", 0.4, True),
        ("I give it 0.6 / 1.0", 0.6, True),
        ("score: 7", 0.0, False),  # out of range: not kept, not clamped
        ("\\boxed{score}", 0.0, False),
        ("", 0.0, False),
        ("It is fine.", 0.0, False),
    ],
)
def test_scores_are_read_by_the_authors_rule(answer: str, score: float, read: bool) -> None:
    assert judge_score(answer) == (score, read)
