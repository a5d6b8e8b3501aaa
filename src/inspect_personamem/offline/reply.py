"""What an offline model (`personamem/oracle`, `personamem/floor`) outputs."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage


def offline_output(model_name: str, text: str, input: Sequence[ChatMessage]) -> ModelOutput:
    """`text` as the model's output. Its usage is an estimate (four characters a
    token), set so that Inspect never reaches for a downloadable tokenizer."""
    prompt_tokens = sum(len(message.text) for message in input) // 4
    output = ModelOutput.from_content(model_name, text)
    reply_tokens = max(1, len(text) // 4)
    output.usage = ModelUsage(
        input_tokens=prompt_tokens,
        output_tokens=reply_tokens,
        total_tokens=prompt_tokens + reply_tokens,
    )
    return output
