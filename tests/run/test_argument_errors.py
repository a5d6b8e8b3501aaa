"""A deliberate error is one short message from the `inspect` command, before any sample."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

INSPECT = Path(sys.executable).parent / "inspect"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-T", "top_k=0"], "top_k=0: must be at least 1"),
        (["-T", "memory=nowhere.at_all:X"], "memory='nowhere.at_all:X': cannot import it"),
        (["-T", "memory=json:NoSuchClass"], "has no attribute 'NoSuchClass'"),
    ],
)
def test_a_bad_memory_argument_is_one_message_from_inspect(
    small_split: Path, tmp_path: Path, arguments: list[str], message: str
) -> None:
    done = subprocess.run(
        [str(INSPECT), "eval", "inspect_personamem/personamem_32k", "--model", "mockllm/model",
         "-T", f"data_dir={small_split}", "-T", "history=memory", *arguments,
         "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "1000"},
    )  # fmt: skip
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert message in output and "Traceback" not in output
    assert len(output.splitlines()) == 1, output
    assert not (tmp_path / "logs").exists()  # no run began


@pytest.mark.slow
@pytest.mark.parametrize(
    "arguments", [["-T", "history=rag"], ["-T", "history=tools", "-T", "search=dense"]]
)
def test_a_dense_embedder_out_of_reach_is_one_message_from_inspect(
    small_split: Path, tmp_path: Path, arguments: list[str]
) -> None:
    """The default embedder offline and not in the Hugging Face cache: one line, before
    the data are read (whose warning, generated data here, would come first)."""
    done = subprocess.run(
        [str(INSPECT), "eval", "inspect_personamem/personamem_32k", "--model", "mockllm/model",
         "-T", f"data_dir={small_split}", *arguments, "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "1000", "HF_HUB_OFFLINE": "1",
             "HF_HUB_CACHE": str(tmp_path / "empty-cache")},
    )  # fmt: skip
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert "embedder='BAAI/bge-m3': not a folder and not in the Hugging Face cache" in output
    assert len(output.splitlines()) == 1, output
    assert not (tmp_path / "logs").exists()  # no run began
