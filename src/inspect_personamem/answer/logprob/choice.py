"""From per-token log-probabilities to a chosen option.

- `tokens` (default, the paper's §4.5): the mean log-probability per token, so a long
  option is not penalised for having more tokens to pay for.
- `chars`: the summed log-probability per character of the option text, as
  lm-evaluation-harness's `acc_norm`. Token counts depend on the tokenizer, so
  per-token scores of two models with different tokenizers normalise by different
  amounts for the same text; per-character scores do not, which makes models
  comparable with each other.
- `sum`: no normalisation. It favours short options; useful as a diagnostic, since on
  the real 32k split the longest option is the correct one in over half the questions.

Ties go to the earliest option, so the choice is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from inspect_personamem.data.options import LETTERS
from inspect_personamem.types import Normalization


@dataclass(frozen=True)
class OptionScore:
    """One option's evidence: summed log-probability, its size, and the normalised score."""

    letter: str
    logprob: float
    tokens: int
    chars: int
    score: float


def score_options(
    token_logprobs: Sequence[Sequence[float]], texts: Sequence[str], normalization: Normalization
) -> list[OptionScore]:
    """Each option's score under `normalization`, in the order shown."""
    scores: list[OptionScore] = []
    for letter, logprobs, text in zip(LETTERS[: len(texts)], token_logprobs, texts, strict=True):
        total = float(sum(logprobs))
        size = {"tokens": len(logprobs), "chars": len(text), "sum": 1}[normalization]
        scores.append(OptionScore(letter, total, len(logprobs), len(text), total / size))
    return scores


def chosen(scores: Sequence[OptionScore]) -> OptionScore:
    """The highest-scoring option; the earliest on a tie."""
    return max(scores, key=lambda s: s.score)


def as_metadata(scores: Sequence[OptionScore]) -> list[dict[str, Any]]:
    return [asdict(s) for s in scores]
