"""PersonaMem-v2's options message: written as the authors write it, read back."""

from __future__ import annotations

from inspect_personamem.datasets.v2.prompt import (
    OPTIONS_INSTRUCTION,
    OPTIONS_INTRODUCTION,
    options_message,
    read_options_message,
)


def test_the_options_message_reads_back() -> None:
    options = ("Try yoga.", "A. nested letter text", "Go running", "Rest well")
    message = options_message(options)
    assert message == (
        f"{OPTIONS_INTRODUCTION}\n\nA. Try yoga.\nB. A. nested letter text\nC. Go running\n"
        f"D. Rest well\n\n{OPTIONS_INSTRUCTION}"
    )
    assert read_options_message(message) == options
    assert read_options_message("Hello") is None
    assert read_options_message(message.replace("D. Rest", "E. Rest")) is None
