"""What an offline model (`personamem/oracle`, `personamem/floor`) answers: a letter."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage

from ..data.prompt import final_answer


def chosen_reply(model_name: str, letter: str, input: Sequence[ChatMessage]) -> ModelOutput:
    """`<final_answer>(letter)` as the model's output. Its usage is an estimate (four
    characters a token), set so that Inspect never reaches for a downloadable tokenizer."""
    characters = sum(len(message.text) for message in input)
    output = ModelOutput.from_content(model_name, final_answer(letter))
    output.usage = ModelUsage(
        input_tokens=characters // 4, output_tokens=4, total_tokens=characters // 4 + 4
    )
    return output
