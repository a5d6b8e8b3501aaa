"""The official final user message: question, instruction and options."""

from __future__ import annotations

from inspect_personamem.data.options import FINAL_ANSWER_TAG

INSTRUCTION = (
    "Find the most appropriate model response and give your final answer "
    f"(a), (b), (c), or (d) after the special token {FINAL_ANSWER_TAG}."
)
"""The instruction of the authors' evaluation script, word for word."""


def final_user_message(question: str, rendered_options: str) -> str:
    """Question, blank line, instruction, blank line, options: as the official script sends."""
    return f"{question}\n\n{INSTRUCTION}\n\n{rendered_options}"
