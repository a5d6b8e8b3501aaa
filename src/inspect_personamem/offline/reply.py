"""What an offline model (`personamem/oracle`, `personamem/floor`) outputs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage


def offline_output(model_name: str, text: str, input: Sequence[ChatMessage]) -> ModelOutput:
    """`text` as the model's output."""
    return _with_usage(ModelOutput.from_content(model_name, text), input, text)


def offline_tool_call(
    model_name: str, function: str, arguments: dict[str, Any], input: Sequence[ChatMessage]
) -> ModelOutput:
    """A call of the tool `function` with `arguments` as the model's output."""
    output = ModelOutput.for_tool_call(model_name, function, arguments, content="")
    return _with_usage(output, input, json.dumps(arguments))


def _with_usage(output: ModelOutput, input: Sequence[ChatMessage], reply: str) -> ModelOutput:
    """`output` with its usage: an estimate (four characters a token), set so that
    Inspect never reaches for a downloadable tokenizer."""
    prompt_tokens = sum(len(message.text) for message in input) // 4
    reply_tokens = max(1, len(reply) // 4)
    output.usage = ModelUsage(
        input_tokens=prompt_tokens,
        output_tokens=reply_tokens,
        total_tokens=prompt_tokens + reply_tokens,
    )
    return output
