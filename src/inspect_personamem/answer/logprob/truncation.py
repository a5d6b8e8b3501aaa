"""Fitting history, question and options into the model's context window.

Policy: when the prompt (shared prefix plus the longest option) does not fit, whole
messages are cut from the oldest end of the history, as few as possible. The session
that is cut into keeps its `system` message (the persona line that opens every
session), put back in front of its kept messages, so every message the model sees
still comes after its session's persona. The question is never cut. What was cut is
returned as a `Truncation`, recorded per sample.

A window too small for the question and options alone, or for any message of the
history, is an error: the result would be the no-history baseline under another name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from inspect_ai.model import ChatMessage

from inspect_personamem.answer.logprob.template import (
    OptionPrompt,
    PrefixEncoder,
    SharedPrefix,
    encode,
    prompt_after,
    shared_prefix,
)
from inspect_personamem.history.system_messages import conversation
from inspect_personamem.types import SystemMessagePolicy


class ContextWindowError(ValueError):
    """The model's context window cannot hold the question with any of its history."""


@dataclass(frozen=True)
class Truncation:
    """What the context window cost one question."""

    window: int
    history_messages: int
    dropped_messages: int
    full_prefix_tokens: int
    prefix_tokens: int

    @property
    def dropped_tokens(self) -> int:
        return self.full_prefix_tokens - self.prefix_tokens

    def describe(self) -> str:
        """What was cut, in words (logged for each truncated question)."""
        return (
            f"history cut to fit the {self.window}-token window: {self.dropped_messages} of "
            f"{self.history_messages} messages ({self.dropped_tokens} tokens) dropped from "
            "the oldest end"
        )

    def as_metadata(self) -> dict[str, Any]:
        return {**asdict(self), "dropped_tokens": self.dropped_tokens}


def kept_history(history: Sequence[ChatMessage], dropped: int) -> list[ChatMessage]:
    """The history without its `dropped` oldest messages, the first kept session's
    system message put back in front when it was among them."""
    kept = list(history[dropped:])
    if kept and kept[0].role != "system":
        opening = next((m for m in reversed(history[:dropped]) if m.role == "system"), None)
        if opening is not None:
            kept.insert(0, opening)
    return kept


def fit_prompt(
    tokenizer: Any,
    history: Sequence[ChatMessage],
    question: Sequence[ChatMessage],
    policy: SystemMessagePolicy,
    bodies: Sequence[str],
    window: int,
    encoder: PrefixEncoder | None = None,
) -> tuple[list[ChatMessage], OptionPrompt, Truncation]:
    """The fewest oldest messages cut so that every option fits `window`: the messages
    sent, their prompt, and what was cut. `encoder`, kept from one question to the next,
    re-encodes only what a question's text does not share with the previous one's."""
    encoder = encoder or PrefixEncoder(tokenizer)

    def messages(dropped: int) -> list[ChatMessage]:
        return conversation(kept_history(history, dropped), question, policy)

    def shared(dropped: int) -> SharedPrefix:
        return shared_prefix(tokenizer, messages(dropped), bodies, encoder)

    best = shared(0)
    full = len(best.ids)
    longest = max(len(encode(tokenizer, text)) for text in best.texts)
    dropped = 0
    if full + longest > window:
        best, low, high = shared(len(history)), 1, len(history)
        if len(best.ids) + longest > window:
            raise ContextWindowError(
                f"the question and its longest option need {len(best.ids) + longest} tokens "
                f"without any history; the context window is {window}"
            )
        while low < high:  # the answer lies in [low, high]; `best` is high's
            middle = (low + high) // 2
            candidate = shared(middle)
            if len(candidate.ids) + longest <= window:
                best, high = candidate, middle
            else:
                low = middle + 1
        dropped = high
    prompt = prompt_after(tokenizer, best)
    while prompt.length() > window and dropped < len(history):
        # an option's own tokens can differ by a token or two from its text encoded alone
        dropped += 1
        prompt = prompt_after(tokenizer, shared(dropped))
    kept = kept_history(history, dropped)
    if prompt.length() > window or (
        any(m.role != "system" for m in history) and all(m.role == "system" for m in kept)
    ):
        raise ContextWindowError(
            f"the context window of {window} tokens holds the question and options but no "
            f"message of its {len(history)}-message history"
        )
    return (
        messages(dropped),
        prompt,
        Truncation(
            window=window,
            history_messages=len(history),
            dropped_messages=len(history) - len(kept),
            full_prefix_tokens=full,
            prefix_tokens=len(prompt.prefix),
        ),
    )
