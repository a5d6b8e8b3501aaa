"""The fast suite's time (issue 37: under 30 s on two cores with the `dev` extra alone).

Runs `pytest -m "not slow"` in a process of its own, `--repeats` times, with the
interpreter this script runs under (so a virtual environment with the `dev` extra
alone measures that), and prints each run's wall and CPU time (CPU: what load on the
machine distorts least) and its largest process's peak RSS beside the cores, the
load average before and after, whether `PYTHONDONTWRITEBYTECODE` is set (each worker
then compiles the package and the tests again), and pytest's summary line.

    /path/to/dev-only-venv/bin/python benchmarks/fast_suite.py [--repeats 2] [--json OUT]

Arguments after `--` go to pytest (`-- --durations=30` names the slowest tests and
setups with the same run), and `--output DIR` keeps each run's whole output there.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTEST = ("-m", "pytest", "-m", "not slow", "-q", "-p", "no:cacheprovider")
"""The fast suite, as the docs give it, in a process of its own."""


def run_once(pytest_args: list[str], output: Path | None) -> dict[str, Any]:
    """One run of the fast suite: wall and CPU seconds, load around it, its summary;
    its whole output written to `output` when given."""
    load_before = os.getloadavg()[0]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *PYTEST, *pytest_args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    if output is not None:
        output.write_text(done.stdout + done.stderr)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        # the largest of its processes (the controller or a worker) so far: a later run's
        # is at least an earlier one's
        "peak_rss_mb": round(cpu_after.ru_maxrss / 1024),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "exit": done.returncode,
        "summary": summary,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs (default 2)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--output", type=Path, help="a folder for each run's whole output")
    parser.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    args = parser.parse_args(argv)
    if args.output:
        args.output.mkdir(parents=True, exist_ok=True)
    machine = {
        "cores": os.cpu_count(),
        "python": sys.executable,
        "no_bytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
    }
    print(f"cores {machine['cores']}, PYTHONDONTWRITEBYTECODE set: {machine['no_bytecode']}")
    runs = []
    for i in range(1, args.repeats + 1):
        output = args.output / f"run{i}.txt" if args.output else None
        result = run_once(args.pytest_args, output)
        runs.append(result)
        print(
            f"run {i}: {result['wall_s']} s wall, {result['cpu_s']} s CPU, "
            f"peak RSS {result['peak_rss_mb']} MB, load "
            f"{result['load_before']} -> {result['load_after']}: {result['summary']}",
            flush=True,
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"machine": machine, "pytest_args": args.pytest_args, "runs": runs}, indent=2
            )
            + "\n"
        )
    return max(int(r["exit"]) for r in runs)


if __name__ == "__main__":
    sys.exit(main())
