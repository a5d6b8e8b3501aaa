"""The option chosen from its log-probabilities, normalised as asked
(`answer/logprob/choice.py`)."""

from __future__ import annotations

from inspect_personamem.answer.logprob.choice import chosen, score_options


def test_choice_is_argmax_of_normalised_scores() -> None:
    logprobs = [[-1.0, -1.0], [-0.5, -0.5, -0.5, -0.5], [-3.0], [-0.5, -0.5]]
    texts = ["ab", "abcdefgh", "a", "ab"]
    by_tokens = score_options(logprobs, texts, "tokens")
    assert [s.score for s in by_tokens] == [-1.0, -0.5, -3.0, -0.5]
    assert chosen(by_tokens).letter == "b"  # tie with (d): the earliest wins
    assert chosen(score_options(logprobs, texts, "sum")).letter == "d"
    by_chars = score_options(logprobs, texts, "chars")
    assert chosen(by_chars).letter == "b" and by_chars[1].score == -0.25
    assert [(s.tokens, s.chars) for s in by_chars] == [(2, 2), (4, 8), (1, 1), (2, 2)]
