"""The `inspect-personamem` command as a shell runs it: a reader that closes its output
early (`inspect-personamem prices --batch | head`) ends it quietly, whichever
subcommand was printing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.helpers import ROOT


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["prices", "--batch"], marks=pytest.mark.slow),  # a process of its own
        # one handler in `cli.main` serves every subcommand: the others end to end only
        pytest.param(["prices", "--path"], marks=pytest.mark.slow),
        pytest.param(
            ["estimate", "--split", "32k", "--model", "openai/gpt-4.1", "--data-dir", "{data}"],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_reader_that_closes_early_ends_the_command_without_a_traceback(
    small_split: Path, command: list[str]
) -> None:
    """The reader's end of the pipe is closed before the command writes anything, so
    its first write (or its last flush) meets the closed pipe, as `head` makes it do
    once it has read its lines."""
    read, write = os.pipe()
    os.close(read)
    src = f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"  # this checkout's
    env = {**os.environ, "PYTHONPATH": src}
    args = [part.format(data=small_split) for part in command]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "inspect_personamem.cli", *args],
            stdout=write, stderr=subprocess.PIPE, text=True, timeout=120, env=env,
        )  # fmt: skip
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 128 + signal.SIGPIPE
