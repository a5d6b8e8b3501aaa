"""The documented `memory=mcp` config against the real reference server,
`@modelcontextprotocol/server-memory` (Node), installed with npm into the pytest cache
at the version the docs pin and started as `node .../dist/index.js` (the docs' `npx`
swapped for the installed file, nothing else changed): a whole `history=memory` run on
generated data, each message an entity named by its history position (a string, as
the server's input schema takes it), the positions read back, and recall measured.
Skipped where node or npm is absent, or npm cannot install the server (no network)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support.memories import run_mcp_memory, split_with_markers
from support.servers.mcp_memory import documented_config

from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.version import VERSION
from inspect_personamem.run.tasks import TASKS

pytestmark = pytest.mark.memory  # the mcp package
PACKAGE = "@modelcontextprotocol/server-memory"
TOP_K = 5


@pytest.fixture(scope="session")
def server_memory(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed server's entry file, at the version the documented config pins;
    installed once into the pytest cache (a temporary folder without one)."""
    [spec] = [arg for arg in documented_config()["server"]["args"] if arg.startswith(PACKAGE)]
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip(f"node and npm are needed to run {spec} (not found on PATH)")
    cache = getattr(request.config, "cache", None)  # None under -p no:cacheprovider
    folder = cache.mkdir("mcp-server-memory") if cache else tmp_path_factory.mktemp("npm")
    package = folder / "node_modules" / PACKAGE
    version = spec.rpartition("@")[2]
    installed = package / "package.json"
    if not installed.is_file() or json.loads(installed.read_text())["version"] != version:
        done = subprocess.run(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", spec],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or ["no output"])[0]  # its error code
            pytest.skip(f"npm could not install {spec} (no network to the npm registry?): {said}")
    return package / "dist" / "index.js"


def ask_for_the_evidence(data: Path, store: ContextStore) -> None:
    """Make each question's text the marker word of the first message of its evidence
    (where the evidence rule in force locates it; else of its last visible message): the
    reference server's search finds the messages holding the query word for word."""
    questions = data / "questions_32k.csv"
    task = TASKS["personamem_32k"](data_dir=str(data))
    markers = {}
    for sample in task.dataset:
        metadata = sample.metadata or {}
        evidence = VERSION.evidence(metadata, store)
        history = store.history(
            metadata["shared_context_id"], metadata["end_index_in_shared_context"]
        )
        at = evidence.spans[0][0] if evidence.located else len(history) - 1
        markers[str(sample.id)] = history[at].text.split()[-1]
    with questions.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    for row in rows:
        row["user_question_or_message"] = markers[row["question_id"]]
    with questions.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.slow
def test_the_documented_config_runs_against_the_reference_server(
    server_memory: Path, tmp_path: Path
) -> None:
    data = split_with_markers(tmp_path / "data")
    store = ContextStore(data / "shared_contexts_32k.jsonl")
    ask_for_the_evidence(data, store)
    config = documented_config()
    config["server"].update(command=shutil.which("node"), args=[str(server_memory)])
    log = run_mcp_memory(data, tmp_path / "logs", config)
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == 24
    statuses = []
    for sample in log.samples:
        metadata = sample.metadata
        query = metadata["user_question_or_message"].lower()
        history = store.history(
            metadata["shared_context_id"], metadata["end_index_in_shared_context"]
        )
        holding = [position for position, m in enumerate(history) if query in m.text.lower()]
        items = metadata["memory"]["items"]
        assert [item["position"] for item in items] == holding[:TOP_K], sample.id
        retrieval = metadata["retrieval"]
        assert retrieval["positioned"] == retrieval["items"] == len(items) > 0
        if metadata["evidence"]["located"]:
            assert retrieval["status"] == "found" and retrieval["first_rank"] == 1, sample.id
            assert retrieval["recall"] > 0
        statuses.append(retrieval["status"])
    assert statuses.count("found") >= 12, statuses  # recall measured on most questions
    used = [sample.metadata["memory"]["memory_usage"] for sample in log.samples]
    assert sum(u.get("mcp_search_calls", 0) for u in used) == 24
