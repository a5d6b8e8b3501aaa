"""Explicit prompt-cache breakpoints (Anthropic): which history ends to mark, and marking them.

Anthropic caches a prompt prefix only up to a message marked as a breakpoint, at
most four per request. The dataset chooses each question's ends
(`data.order.prefix_ends`, stored in its metadata) and the choice solver marks them
on its history.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from inspect_ai.model import ChatMessage, ContentText


def with_cache_breakpoints(
    messages: Sequence[ChatMessage], ends: Iterable[int]
) -> list[ChatMessage]:
    """The messages with an explicit cache breakpoint after each prefix end.

    A breakpoint goes on the last non-system message at or before the end (Anthropic
    does not take one on a mid-conversation system message). Marked messages are
    copies; the others are the shared originals.
    """
    marked = list(messages)
    for end in ends:
        index = min(end, len(marked)) - 1
        while index >= 0 and marked[index].role == "system":
            index -= 1
        if index < 0:
            continue
        message = marked[index]
        content = [ContentText(text=message.text, cache_breakpoint=True)]
        marked[index] = message.model_copy(update={"content": content})
    return marked
