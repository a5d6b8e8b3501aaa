"""System messages inside a history: keep them, merge them the official way, or drop them.

Each session of a PersonaMem history opens with a `system` message, so a history has
many system messages in the middle. Providers treat those differently, so the choice
is explicit:

- `keep`: send them as they are (the official run of gpt-4.1 and gpt-4.5).
- `merge`: the official conversion for OpenAI models whose name contains "o"
  (gpt-4o, o1, o3-mini, o4-mini): each system message becomes a `[System]: ` line
  prefixed to the next message, and consecutive messages of one role are joined
  with a newline. Applied to history plus the question, as the official script does.
- `drop`: leave them out (what Gemini does with them).
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser

from inspect_personamem.types import SystemMessagePolicy


def conversation(
    history: Sequence[ChatMessage],
    question: Sequence[ChatMessage],
    policy: SystemMessagePolicy,
) -> list[ChatMessage]:
    """The messages to send: history and question under the system-message policy."""
    if policy == "keep":
        return [*history, *question]
    if policy == "drop":
        return [message for message in history if message.role != "system"] + list(question)
    return merge_system_messages([*history, *question])


def merge_system_messages(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The official `convert_role_system_to_user`; untouched messages are reused, not copied."""
    merged: list[ChatMessage] = []
    system_buffer = ""
    for message in messages:
        if message.role == "system":
            system_buffer += f"[System]: {message.text}\n"
            continue
        content = system_buffer + message.text if system_buffer else None
        system_buffer = ""
        if merged and merged[-1].role == message.role:
            merged[-1] = _with_text(merged[-1], merged[-1].text + "\n" + (content or message.text))
        elif content is not None:
            merged.append(_with_text(message, content))
        else:
            merged.append(message)
    return merged


def _with_text(message: ChatMessage, text: str) -> ChatMessage:
    if message.role == "assistant":
        return ChatMessageAssistant(content=text)
    return ChatMessageUser(content=text)
