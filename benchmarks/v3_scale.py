"""PersonaMem-v3 at the release's size (issues 51 and 52): a whole generated persona
(`generate(history_tokens=...)`: ~416k tokens of history at a query's time, 7 queries
a task type: 217) run end to end by the offline oracle (`personamem/oracle`, always
right, bound as the grader too), in each setting, beside a bare Inspect task given the
same prompts.

Each run is a fresh Python process (`--worker`), so that its figures are its own:

- CPU seconds (user + system, `getrusage`: the process's own, and its children's, the
  apps' MCP servers where `apps_transport=mcp`), wall seconds;
- peak resident memory (`ru_maxrss` of the process);
- the `.eval` log's bytes.

Under `apps_transport=mcp` the children's CPU is the app servers'; each server start is
also counted directly: the worker wraps the server command (`served.server_command`, in
its own process only) so that every server process appends, to a file of the run's, its
CPU when it starts serving (the start's cost: interpreter, imports, session) and, as it
exits, its whole CPU and peak RSS (`VmHWM`). Starts are told apart as the task's check
at build (`check`, no writes file) and a query's try (`query`); a process with no exit
record was stopped by a signal before `atexit` ran.

Settings (`--settings`): `authors` and `events` (`history=full` in each
`history_layout`), `none` (`history=none`), `apps` (the agent over the apps in process),
`mcp` (the same over the package's MCP server, one process a query), `memory`
(`history=memory` with the authors' Markdown memory, `memory_writer:MarkdownMemory`,
written by the oracle as the offline writer: the evaluated model, as no `memory` role
is bound), and `bare`: an
Inspect `Task` of the same samples, each solved by `generate()` after the history the
`authors` layout sends, read from a file of its own as it starts (written as the task
is built), with the same model and scorer: Inspect alone, given the same prompts, with
no history held but the samples' in flight. Inspect's defaults otherwise (adaptive
concurrency, realtime log), as `inspect eval` runs, unless `--max-samples` fixes the
samples in flight. Each run also reports the package's full collections of finished
prompts (`answer/garbage.py`): how many, and their CPU.

The machine this runs on may be shared: read CPU seconds and peak memory, which load
distorts little, before wall seconds.

    PYTHONPATH=src python benchmarks/v3_scale.py [--k 1 7 14] [--personas 1]
        [--history-tokens 416000] [--settings authors events bare] [--max-samples N]
        [--model oracle|floor] [--json OUT]

`--model floor` answers with `personamem/floor` (the prompt's last message alone, `-M
rule=question`), graded by the oracle without a question file (it knows the judged
gold from the task's samples): the oracle finds each query by its history, work that
grows with the personas (on ten personas it computed a history of every query sharing a
prompt, in both layouts), so the floor is the model to read the harness's memory with.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

SETTINGS: dict[str, dict[str, str]] = {
    "authors": {"history": "full", "history_layout": "authors"},
    "events": {"history": "full", "history_layout": "events"},
    "none": {"history": "none"},
    "apps": {"history": "apps"},
    "mcp": {"history": "apps", "apps_transport": "mcp"},
    "memory": {
        "history": "memory",
        "memory": "inspect_personamem.datasets.v3.memory_writer:MarkdownMemory",
    },
    "bare": {"history": "full", "history_layout": "authors"},
}
"""Each setting's task arguments (`bare` builds its samples from the `authors` task's)."""


def _queries_file(root: Path) -> Path:
    """A question file for the oracle (it reads every persona's of the folder)."""
    return sorted(root.glob("benchmark/*/queries.csv"))[0]


@task
def bare(data_dir: str, histories: str) -> Task:
    """The package's samples solved by `generate()` after the `authors` history, read
    for each sample from its own file under `histories` (written here, one at a time, as
    the task is built): the same prompts and scorer, with no history source, and no
    history held in memory but the samples' in flight. A task function, so that Inspect
    builds it with the grader bound (as v3's task needs)."""
    from inspect_ai.solver import generate

    from inspect_personamem.data.contexts import sample_history
    from inspect_personamem.datasets.v3.version import VERSION
    from inspect_personamem.run.arguments import all_arguments
    from inspect_personamem.run.tasks import TASKS

    task = TASKS["personamem_v3"](data_dir=data_dir, **SETTINGS["authors"])
    arguments = all_arguments({"data_dir": data_dir, **SETTINGS["authors"]}, {}, VERSION)
    loaded = VERSION.load(arguments, True)
    folder = Path(histories)
    folder.mkdir(parents=True, exist_ok=True)
    for index, sample in enumerate(task.dataset):
        (history,) = sample_history(loaded.contexts, sample.metadata or {})
        Path(folder, f"{index}.txt").write_text(history.text, encoding="utf-8")
        sample.metadata = {**(sample.metadata or {}), BARE_KEY: index}
    return Task(
        dataset=task.dataset,
        solver=[attached(histories), generate()],
        scorer=task.scorer,
    )


BARE_KEY = "bare_history"
"""The sample metadata naming a `bare` sample's history file."""


@solver
def attached(histories: str) -> Solver:
    """The sample's `authors` history (its file under `histories`) put before its prompt."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        text = Path(histories, f"{state.metadata[BARE_KEY]}.txt").read_text(encoding="utf-8")
        state.messages.insert(0, ChatMessageUser(content=text))
        return state

    return solve


RECORDER = """
import atexit as _atexit, json as _json, os as _os, resource as _resource
def _cpu():
    used = _resource.getrusage(_resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
def _record(**fields):
    with open({path!r}, "a") as out:
        out.write(_json.dumps({{"pid": _os.getpid(), **fields}}) + "\\n")
def _exited():
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
    _record(cpu_s=_cpu(), peak_kb=int(status))
_atexit.register(_exited)
import {module} as _server
_serve = _server.serve
def _ready(*args, **kwargs):
    _record(kind={kind!r}, ready_cpu_s=_cpu())
    return _serve(*args, **kwargs)
_server.serve = _ready
main()
"""
"""Code run in an app server's process in place of its final `main()`: one line as it
starts serving (its CPU so far: the start's cost), one as it exits (its whole CPU and
peak RSS)."""


def count_starts(record: Path) -> None:
    """Wrap the MCP setting's server command (in this process) so that each server
    process appends its start's and its exit's figures to `record`."""
    from inspect_personamem.datasets.v3.agent import served
    from inspect_personamem.datasets.v3.agent.server import MODULE, server_command

    command = server_command

    def recorded(*args: Any, **kwargs: Any) -> tuple[str, list[str]]:
        executable, arguments = command(*args, **kwargs)
        flag, code, *options = arguments
        if flag != "-c" or not code.endswith("main()"):
            raise RuntimeError(f"the server command changed shape: {arguments[:2]}")
        kind = "check" if "--writes" not in options else "query"
        hook = RECORDER.format(path=str(record), module=MODULE, kind=kind)
        return executable, [flag, code.removesuffix("main()") + hook, *options]

    served.server_command = recorded  # type: ignore[attr-defined]  # its imported copy


def starts(record: Path) -> dict[str, Any]:
    """The server starts `record` holds: how many of each kind, and their CPU (at the
    start of serving, and whole) and peak RSS, as mean and max."""
    if not record.exists():
        return {"server_starts": 0}
    by_pid: dict[int, dict[str, Any]] = {}
    for line in record.read_text().splitlines():
        fields = json.loads(line)
        by_pid.setdefault(fields.pop("pid"), {}).update(fields)
    rows = list(by_pid.values())
    ready = [r["ready_cpu_s"] for r in rows if "ready_cpu_s" in r]
    whole = [r["cpu_s"] for r in rows if "cpu_s" in r]
    peaks = [r["peak_kb"] / 1024 for r in rows if "peak_kb" in r]
    return {
        "server_starts": len(rows),
        "server_starts_by_kind": {
            kind: sum(1 for r in rows if r.get("kind") == kind) for kind in ("check", "query")
        },
        "servers_without_exit_record": len(rows) - len(whole),
        "server_start_cpu_s_mean": round(sum(ready) / len(ready), 3) if ready else None,
        "server_start_cpu_s_max": round(max(ready), 3) if ready else None,
        "server_cpu_s_mean": round(sum(whole) / len(whole), 3) if whole else None,
        "server_cpu_s_total": round(sum(whole), 1),
        "server_peak_rss_mb_mean": round(sum(peaks) / len(peaks)) if peaks else None,
    }


def worker(
    root: Path, setting: str, logs: Path, max_samples: int | None, answerer: str = "oracle"
) -> dict[str, Any]:
    """One run of `setting` on the personas in `root`, answered by `answerer`; its figures."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from inspect_personamem.answer.garbage import COLLECTOR

    record = logs / "server-starts.jsonl"
    if SETTINGS[setting].get("apps_transport") == "mcp":
        logs.mkdir(parents=True, exist_ok=True)
        count_starts(record)
    if answerer == "oracle":
        model = grader = get_model(
            "personamem/oracle", questions=str(_queries_file(root)), accuracy=1.0
        )
    else:  # reads nothing but the prompt; the grader knows the judged gold alone
        model = get_model("personamem/floor", rule="question")
        grader = get_model("personamem/oracle")
    start = time.perf_counter()
    (log,) = inspect_eval(
        bare if setting == "bare" else "inspect_personamem/personamem_v3",
        task_args={"data_dir": str(root), "histories": str(logs / "histories")}
        if setting == "bare"
        else {"data_dir": str(root), **SETTINGS[setting]},
        model=model,
        model_roles={"grader": grader},
        display="none",
        log_dir=str(logs),
        log_header_only=True,
        max_samples=max_samples,
    )
    wall = time.perf_counter() - start
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "status": log.status,
        "samples": log.results.total_samples if log.results else 0,
        "accuracy": _accuracy(log),
        "cpu_s": round(own.ru_utime + own.ru_stime, 1),
        "children_cpu_s": round(children.ru_utime + children.ru_stime, 1),
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(own.ru_maxrss / 1024),
        "collections": COLLECTOR.collections,
        "collection_cpu_s": round(COLLECTOR.seconds, 1),
        "log_mb": round(sum(p.stat().st_size for p in logs.glob("*.eval")) / 1e6, 1),
        **(starts(record) if SETTINGS[setting].get("apps_transport") == "mcp" else {}),
    }


def _accuracy(log: Any) -> float | None:
    for score in (log.results.scores if log.results else []) or []:
        if "accuracy" in score.metrics:
            return round(float(score.metrics["accuracy"].value), 3)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, nargs="+", default=[7], help="queries a task type")
    parser.add_argument("--personas", type=int, default=1)
    parser.add_argument("--history-tokens", type=int, default=416_000)
    parser.add_argument("--settings", nargs="+", default=["authors", "events", "bare"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--max-samples", type=int, help="samples in flight (Inspect's `--max-samples`)"
    )
    parser.add_argument(
        "--model",
        choices=["oracle", "floor"],
        default="oracle",
        help="oracle: always right, which finds each query by its history (its own work "
        "grows with the personas); floor: reads the prompt alone, so that a run's figures "
        "are the harness's and Inspect's",
    )
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        root, setting, logs = args.worker
        print(json.dumps(worker(Path(root), setting, Path(logs), args.max_samples, args.model)))
        return

    from inspect_personamem.datasets.v3.generator import generate

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in args.k:
            root = Path(tmp, f"k{k}")
            generate(
                root,
                personas=args.personas,
                queries_per_type=k,
                seed=args.seed,
                history_tokens=args.history_tokens,
            )
            for setting in args.settings:
                logs = Path(tmp, f"logs-k{k}-{setting}")
                done = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--worker",
                        str(root),
                        setting,
                        str(logs),
                        *(["--max-samples", str(args.max_samples)] if args.max_samples else []),
                        "--model",
                        args.model,
                    ],
                    capture_output=True,
                    text=True,
                    env=os.environ,
                )
                if done.returncode != 0:
                    raise RuntimeError(f"{setting} at k={k}: {done.stderr[-3000:]}")
                row = {
                    "k": k,
                    "personas": args.personas,
                    "setting": setting,
                    "model": args.model,
                    **json.loads(done.stdout.strip().splitlines()[-1]),
                }
                print(json.dumps(row), flush=True)
                results.append(row)
    report = {
        "history_tokens": args.history_tokens,
        "cores": os.cpu_count(),
        "load": round(os.getloadavg()[0], 2),
        "runs": results,
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
