"""The v3 apps' MCP server's start (issues 48, 51): what a server costs from its process's
start to serving, since an `apps_transport=mcp` run starts one per sample.

Two measures, each over `--repeats` fresh processes, on a generated persona:

- `ready`: `server_command`'s process with nothing on its standard input: it imports
  the server, builds the session, starts serving, reads the end of its input and
  exits; its CPU (user + system) and wall seconds, and its peak RSS;
- `list_tools`: the real thing, `server_command`'s process over stdio with the `mcp`
  client: wall seconds from the start of the process to the answer to `list_tools`.

    python benchmarks/app_server_start.py [--repeats 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from inspect_personamem.datasets.v3.agent.server import server_command
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.records import read_queries

PEAK: Final = "; print(open('/proc/self/status').read(), file=__import__('sys').stderr)"
"""Appended to the server's `-c` code: its own memory's high-water mark (`VmHWM`), on
stderr as it exits (`getrusage`'s `ru_maxrss` of a child counts the benchmark's
memory, from which it was forked)."""


def ready_once(executable: str, arguments: list[str]) -> dict[str, float]:
    """One server process to serving (and out at once): CPU and wall seconds, peak RSS
    (MB, Linux)."""
    flag, code, *options = arguments
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [executable, flag, code + PEAK, *options],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    [peak_kb] = re.findall(r"^VmHWM:\s+(\d+) kB$", done.stderr, re.MULTILINE)
    return {"cpu_s": cpu, "wall_s": wall, "peak_rss_mb": int(peak_kb) / 1024}


async def list_tools_once(executable: str, arguments: list[str]) -> float:
    """Wall seconds from the server's start to its answer to `list_tools`."""
    start = time.perf_counter()
    parameters = StdioServerParameters(command=executable, args=arguments)
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        await client.list_tools()
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="processes each (default 5)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        [uid] = generate(root, personas=1, queries_per_type=1, seed=3).personas
        query = max(read_queries(root / f"benchmark/{uid}/queries.csv"), key=lambda q: q.ts)
        metadata = {
            "user_id": query.user_id,
            "ts": query.ts,
            "mcp_tools_allowed": "all",
            "state_write_policy": "writes_ok",
        }
        executable, command = server_command(root / "backend", metadata)
        readies = [ready_once(executable, command) for _ in range(args.repeats)]
        listed = [anyio.run(list_tools_once, executable, command) for _ in range(args.repeats)]
    result = {
        "cores": os.cpu_count(),
        "load": round(os.getloadavg()[0], 2),
        "ready_cpu_s": round(statistics.median(r["cpu_s"] for r in readies), 2),
        "ready_wall_s": round(statistics.median(r["wall_s"] for r in readies), 2),
        "ready_peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in readies), 1),
        "list_tools_wall_s": round(statistics.median(listed), 2),
    }
    print(
        f"{args.repeats} processes each (medians), {result['cores']} cores, load "
        f"{result['load']}: to serving and out {result['ready_cpu_s']} s CPU, "
        f"{result['ready_wall_s']} s wall, peak RSS {result['ready_peak_rss_mb']} MB; "
        f"to list_tools over stdio "
        f"{result['list_tools_wall_s']} s wall"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
