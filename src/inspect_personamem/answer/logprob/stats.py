"""What one question's option log-probabilities cost, shared by the `hf` and `server`
back ends and the `backend` that picks one (kept apart so that none imports another)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass
class ForwardStats:
    """Tokens run through the model, counted as they go in (padding included), and
    prefix tokens taken from a kept cache instead. The local (`hf`) back end also counts
    its forward passes and the copies of cached keys and values it makes (a cache grown
    into a larger buffer, or copied for options that cannot share it): each copy once,
    however many layers it spans, and the bytes it moved. These are what a regression of
    the cache's reuse shows as without a GPU to time it on."""

    forward_tokens: int = 0
    reused_tokens: int = 0
    passes: int = 0
    cache_copies: int = 0
    copied_bytes: int = 0

    def add(self, other: ForwardStats) -> None:
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True)
class Scored:
    """Per option, the log-probability of each of its tokens; and what that cost."""

    logprobs: list[list[float]]
    stats: ForwardStats
