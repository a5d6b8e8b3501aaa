"""The v3 generator at the release's size (issue 52 item 1): one persona of `--k` queries
a task type (7: 217 queries, the release's "~220") whose long-context history averages
`--history-tokens` (416000: the authors' ≈416k) at its queries' times.

Measures the generation alone (CPU seconds, user + system, by getrusage; wall seconds;
peak RSS of the process), then reads the persona back as the task does and counts the
history at each query's time (`history_text` at `CHARS_PER_TOKEN`): mean, min and max,
the files' size, and how many consecutive queries share a time.

    PYTHONPATH=src python benchmarks/v3_generator_size.py [--k 7] [--history-tokens 416000]
        [--seed 1] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from inspect_personamem.data.requests import text_tokens
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.persona.longctx import history_text
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams


def cpu() -> float:
    """This process's user + system CPU seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--history-tokens", type=int, default=416_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cpu0, wall0 = cpu(), time.perf_counter()
        folder = generate(
            root,
            personas=1,
            queries_per_type=args.k,
            seed=args.seed,
            history_tokens=args.history_tokens,
        )
        made = {"cpu_s": cpu() - cpu0, "wall_s": time.perf_counter() - wall0}
        made["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        [uid] = folder.personas
        text = folder.queries_file(uid).read_text(encoding="utf-8").split("\n", 1)[1]
        times = [int(row["ts"]) for row in csv.DictReader(io.StringIO(text))]
        streams = PersonaStreams(folder.persona_folder(uid).parent)
        tokens = [text_tokens(history_text(streams.visible(uid, t))) for t in times]
        files = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    figures = {
        "queries": len(times),
        "target_tokens": args.history_tokens,
        "history_tokens_mean": round(statistics.mean(tokens)),
        "history_tokens_min": min(tokens),
        "history_tokens_max": max(tokens),
        "consecutive_sharing_a_time": sum(a == b for a, b in zip(times, times[1:], strict=False)),
        "files_mb": round(files / 2**20, 1),
        "generate": {key: round(value, 2) for key, value in made.items()},
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
