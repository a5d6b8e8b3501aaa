"""Every offline command the docs print runs as printed: each fenced `bash` block marked
`<!-- offline-recipe -->` is run whole by bash, in a folder holding the data `try` writes
of each version (where the recipes name it), with only the placeholders a page defines
filled, `HF_HUB_OFFLINE=1`, every web request sent to a closed port,
`INSPECT_EVAL_LIMIT=3` and a log folder of its own; every log it writes must succeed.
Every docs line that runs an offline model is in such a block. And what the README says
of `inspect eval` under Ctrl-C, held with a real SIGINT."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from support.helpers import offline_env

from inspect_personamem.datasets.registry import VERSIONS

ROOT = Path(__file__).resolve().parents[2]
DOCS = (
    "README.md",
    "docs/offline.md",
    "docs/open-answers.md",
    "docs/personamem-v2.md",
    "docs/personamem-v3.md",
    "docs/memory-and-retrieval.md",
)
MARK = "<!-- offline-recipe -->"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
DATA = {"v1": "personamem-try/data", "v2": "personamem-v2-try/data", "v3": "personamem-v3-try/data"}
"""Where each version's data are, as the recipes name them: where `try` (`--out`) writes."""
PLACEHOLDERS = {"FOLDER": "personamem"}
"""What a page defines a placeholder as: `-T data_dir=FOLDER`, a folder of the split's
files (offline.md, "The shortcut floor")."""
OFFLINE_MODELS = ("personamem/oracle", "personamem/floor")


def blocks(page: str) -> list[tuple[str, str, bool]]:
    """Each fenced block of a page: its language, its text and whether it is marked a
    recipe (the marker on the line before its fence)."""
    found: list[tuple[str, str, bool]] = []
    for match in _FENCE.finditer(page):
        before = page[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((match[1], match[2], before.strip() == MARK))
    return found


def recipes() -> list[tuple[str, str]]:
    """Every marked block of the docs, by `page#n`."""
    found: list[tuple[str, str]] = []
    for doc in DOCS:
        page = (ROOT / doc).read_text(encoding="utf-8")
        marked = [text for language, text, mark in blocks(page) if mark and language == "bash"]
        found.extend((f"{doc}#{n}", text) for n, text in enumerate(marked, 1))
    return found


RECIPES = recipes()


def test_every_offline_command_of_the_docs_is_a_recipe() -> None:
    """A docs command line that runs an offline model is in a marked block, and the
    recipes cover v1, v2 and v3: choosing, answering openly, an agent, the Markdown
    memory."""
    for doc in DOCS:
        page = (ROOT / doc).read_text(encoding="utf-8")
        for language, text, mark in blocks(page):
            if language == "bash" and any(model in text for model in OFFLINE_MODELS):
                assert mark, f"{doc}: an offline command outside a recipe: {text[:120]!r}"
    every = "\n".join(text for _, text in RECIPES)
    for needed in (
        "inspect_personamem/personamem_32k --model personamem/oracle",
        "inspect_personamem/personamem_32k --model personamem/floor",
        "-T answer=open --model-role grader=personamem/oracle",
        "-T history=tools",
        "inspect_personamem/personamem_v2_32k --model personamem/oracle",
        "inspect_personamem/personamem_v3 --model personamem/oracle",
        "inspect_personamem/personamem_v3 --model personamem/floor",
        "-T history=apps",
        "memory_writer:MarkdownMemory",
    ):
        assert needed in every, needed


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding each version's data as `try` writes it, where the recipes name
    it, the v1 split also as `personamem` (`PERSONAMEM_DATA_DIR`), and the files the
    pages define (a Python block whose first line names its file)."""
    folder = tmp_path_factory.mktemp("recipes")
    for key, where in DATA.items():
        trying = VERSIONS[key].trying
        assert trying is not None
        trial = trying.trial({option.dest: None for option in trying.options}, 60, 0)
        trial.write((folder / where).absolute())
    shutil.copytree(folder / DATA["v1"], folder / PLACEHOLDERS["FOLDER"])
    for doc in DOCS:
        for language, text, _ in blocks((ROOT / doc).read_text(encoding="utf-8")):
            named = re.match(r"# (\w+\.py)\n", text)
            if language == "python" and named:
                (folder / named[1]).write_text(text, encoding="utf-8")
    return folder


def filled(text: str) -> str:
    """A recipe with the placeholders its page defines filled."""
    for name, value in PLACEHOLDERS.items():
        text = re.sub(rf"\b{name}\b", value, text)
    return text


def environment(folder: Path, **more: str) -> dict[str, str]:
    """The environment with every web request sent to a closed port (`offline_env`), the
    Python running the tests first on PATH (its `inspect`) and the package's source
    importable."""
    env = offline_env(folder)
    source = str(ROOT / "src")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    return {**env, **more}


@pytest.mark.slow  # each recipe runs Inspect in processes of its own
@pytest.mark.parametrize(("where", "recipe"), RECIPES, ids=[where for where, _ in RECIPES])
def test_a_recipe_runs_as_printed(where: str, recipe: str, workspace: Path) -> None:
    logs = workspace / "logs" / re.sub(r"\W", "_", where)
    env = environment(
        workspace,
        PERSONAMEM_DATA_DIR=str(workspace / PLACEHOLDERS["FOLDER"]),
        INSPECT_EVAL_LIMIT="3",
        INSPECT_LOG_DIR=str(logs),
    )
    done = subprocess.run(
        ["bash", "-e", "-c", filled(recipe)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    written = [read_eval_log(info) for info in list_eval_logs(str(logs))]
    assert len(written) == recipe.count("inspect eval "), done.stdout[-2000:]
    for log in written:
        assert log.status == "success", (log.eval.task_args, log.error)
        assert log.samples and all(sample.error is None for sample in log.samples)
        assert log.results is not None and log.results.completed_samples == len(log.samples)


def _interrupted(workspace: Path, logs: Path, when: str) -> tuple[int, Any]:
    """`inspect eval` (the oracle over the history's tools, one connection: long enough
    to interrupt) sent SIGINT as a terminal's Ctrl-C sends it, to its process group:
    `when` `running`, once its log exists; `loading`, at once. Its exit status and log
    (None where it wrote none)."""
    command = [
        "inspect", "eval", "inspect_personamem/personamem_32k", "--model", "personamem/oracle",
        "-M", f"questions={workspace / DATA['v1'] / 'questions_32k.csv'}",
        "-T", f"data_dir={workspace / DATA['v1']}", "-T", "history=tools",
        "--max-connections", "1", "--log-dir", str(logs),
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=workspace,
        env=environment(workspace),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started = time.monotonic()
    while when == "running" and not list(logs.glob("*.eval")):
        assert process.poll() is None and time.monotonic() - started < 300
        time.sleep(0.2)
    time.sleep(0.2)  # at once: a fast machine answers every question within a second
    os.killpg(process.pid, signal.SIGINT)
    status = process.wait(timeout=300)
    written = list_eval_logs(str(logs))
    return status, read_eval_log(written[0], header_only=True) if written else None


@pytest.mark.slow  # two Inspect processes, interrupted
def test_ctrl_c_exits_as_the_readme_says(workspace: Path) -> None:
    """README ("How to tell a failed run"): interrupted while its samples run, `inspect
    eval` exits 0 and its log reads `cancelled`; interrupted while it loads, it dies of
    the signal (130 in a shell)."""
    status, log = _interrupted(workspace, workspace / "sigint-running", "running")
    assert status == 0 and log is not None and log.status == "cancelled"
    status, log = _interrupted(workspace, workspace / "sigint-loading", "loading")
    assert status == -signal.SIGINT and log is None
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "interrupts it while its samples run" in readme and "it exits 130" in readme
