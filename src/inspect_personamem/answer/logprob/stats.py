"""What one question's option log-probabilities cost, shared by the `hf` and `server`
back ends and the `backend` that picks one (kept apart so that none imports another)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ForwardStats:
    """Tokens run through the model, counted as they go in (padding included), and
    prefix tokens taken from a kept cache instead."""

    forward_tokens: int = 0
    reused_tokens: int = 0

    def add(self, other: ForwardStats) -> None:
        self.forward_tokens += other.forward_tokens
        self.reused_tokens += other.reused_tokens


@dataclass(frozen=True)
class Scored:
    """Per option, the log-probability of each of its tokens; and what that cost."""

    logprobs: list[list[float]]
    stats: ForwardStats
