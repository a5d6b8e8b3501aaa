"""Build time, memory, harness time and log size at the real splits' shapes.

For each shape (synthetic files with the real splits' counts and message lengths;
see `synthetic.SHAPES`), each measurement runs in a fresh Python process:

1. `build`: time and peak memory to create the task (read the questions, index and
   parse the contexts, build every sample).
2. `run`: an end-to-end `inspect eval` of N samples spread over the split (every k-th,
   so that histories are as long as the split's on average), after a warm-up run of
   N/2 other samples in the same process, with a stand-in model that answers at once
   (mockllm), for four designs side by side:
   - `shared` (this package): history joined at solve time from one shared store,
     removed from the logged messages after generation; Inspect's defaults, as the
     `inspect eval` command runs it;
   - `shared-no-realtime`: the same with `--no-log-realtime`;
   - `shared-lean`: the same with `--no-log-realtime --no-log-model-api` (the model
     call's raw request is not logged; the messages sent still are, in the event);
   - `naive-log`: the same, but the history left in the logged messages
     (`keep_history_in_log=True`);
   - `naive-input`: the history copied into every `Sample.input`;
   - `rag-bm25`, `rag-dense`: `history=rag` (the 5 most similar messages instead of the
     history) with BM25, or dense embeddings from a stand-in of an OpenAI-compatible
     `/v1/embeddings` endpoint on loopback (`tests/support/servers/openai_api.py`, no model), no
     embedding cache; ingestion and retrieval are in the harness time.
   Printed per sample of the measured run: harness seconds, growth of resident memory
   (after the warm-up, so one-time costs are left out), `.eval` bytes, and the log
   bytes as a multiple of one compressed copy of the sample's history (zstd at its
   default level, the compression `.eval` files use).

Usage: python benchmarks/scale.py [--shapes 32k 128k 1M] [--samples 100] [--designs ...]
       [--profile]; `--samples 0 --designs shared` runs a whole split, for its peak memory.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import zstandard

from inspect_personamem.datasets.v1.splits import check_split

DESIGNS = (
    "shared",
    "shared-no-realtime",
    "shared-lean",
    "naive-log",
    "naive-input",
    "rag-bm25",
    "rag-dense",
)


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss_mb() -> float:
    """Resident memory of this process now, in MB."""
    return _status_mb("VmRSS")


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return _status_mb("VmHWM")


def worker_build(split: str, folder: str) -> dict[str, Any]:
    from inspect_personamem.run.tasks import TASKS

    before = rss_mb()
    start = time.perf_counter()
    task = TASKS["personamem"](split=check_split(split), data_dir=folder)
    return {
        "seconds": time.perf_counter() - start,
        "peak_mb": peak_rss_mb() - before,
        "samples": len(task.dataset),
    }


def naive_input_task(split: str, folder: str) -> Any:
    """The design this package avoids: every sample carries its own copy of the history."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.model import ChatMessageUser
    from inspect_ai.solver import generate

    from inspect_personamem.data.contexts import open_context_store
    from inspect_personamem.run.tasks import TASKS
    from inspect_personamem.scoring.scorer import personamem_scorer

    task = TASKS["personamem"](split=check_split(split), data_dir=folder)
    store = open_context_store((Path(folder) / f"shared_contexts_{split}.jsonl").resolve())
    samples = []
    for sample in task.dataset:
        meta = sample.metadata or {}
        history = store.history(meta["shared_context_id"], meta["end_index_in_shared_context"])
        messages = [m.model_copy() for m in history] + [ChatMessageUser(content=str(sample.input))]
        samples.append(sample.model_copy(update={"input": messages}))
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=personamem_scorer())


def worker_run(split: str, folder: str, design: str, samples: int, profile: bool) -> dict[str, Any]:
    """Warm up on `samples // 2` samples, then measure a run of `samples` others;
    `samples=0` runs the whole split with no warm-up."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from inspect_personamem.data.contexts import open_context_store
    from inspect_personamem.history.retrieved import DEFAULT_EMBEDDER
    from inspect_personamem.run.tasks import TASKS

    def reply(*_: Any) -> ModelOutput:
        output = ModelOutput.from_content("mockllm", "<final_answer>(a)")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    if design == "naive-input":
        task = naive_input_task(split, folder)
    elif design.startswith("rag-"):
        retriever: Literal["dense", "bm25"] = "dense" if design == "rag-dense" else "bm25"
        task = TASKS["personamem"](
            split=check_split(split),
            data_dir=folder,
            history="rag",
            retriever=retriever,
            embedding_cache="none",
            embedder="openai/stand-in" if retriever == "dense" else DEFAULT_EMBEDDER,
        )
    else:
        task = TASKS["personamem"](
            split=check_split(split), data_dir=folder, keep_history_in_log=design == "naive-log"
        )
    # every k-th sample, so that the histories measured are as long as the split's on average
    if samples == 0:
        chosen, warm = list(task.dataset), []
    else:
        warm_up = samples // 2
        spread = list(task.dataset)[:: max(1, len(task.dataset) // (samples + warm_up))]
        chosen, warm = spread[warm_up : warm_up + samples], spread[:warm_up]
    # one compressed copy of each sample's history, the floor for what a log must hold
    store = open_context_store((Path(folder) / f"shared_contexts_{split}.jsonl").resolve())
    history_bytes = 0
    history_chars = 0
    compressor = zstandard.ZstdCompressor()  # level 3, as Inspect's .eval writer uses
    for sample in chosen:
        meta = sample.metadata or {}
        history = store.history(meta["shared_context_id"], meta["end_index_in_shared_context"])
        text = json.dumps([{"role": m.role, "content": m.text} for m in history])
        history_bytes += len(compressor.compress(text.encode()))
        history_chars += sum(len(m.text) for m in history)
    model = get_model("mockllm/model", custom_outputs=reply)
    options: dict[str, Any] = {
        "model": model,
        "display": "none",
        # as the `inspect eval` command does: it asks for log headers only
        "log_header_only": True,
        "log_realtime": design not in ("shared-no-realtime", "shared-lean"),
        "log_model_api": False if design == "shared-lean" else None,
    }
    with tempfile.TemporaryDirectory() as logs:
        if warm:
            inspect_eval(
                task, sample_id=[str(s.id) for s in warm], log_dir=f"{logs}/warm", **options
            )
        gc.collect()
        before = rss_mb()
        profiler = None
        if profile:
            from pyinstrument import Profiler

            profiler = Profiler()
            profiler.start()
        start = time.perf_counter()
        (log,) = inspect_eval(
            task, sample_id=[str(s.id) for s in chosen], log_dir=f"{logs}/run", **options
        )
        seconds = time.perf_counter() - start
        if profiler is not None:
            profiler.stop()
            print(profiler.output_text(unicode=False, flat=True)[:5000], file=sys.stderr)
        gc.collect()
        after = rss_mb()
        assert log.status == "success", log.error
        log_bytes = sum(p.stat().st_size for p in Path(logs, "run").glob("*.eval"))
    return {
        "seconds_per_sample": seconds / len(chosen),
        "rss_growth_mb_per_sample": (after - before) / len(chosen),
        "log_bytes_per_sample": log_bytes / len(chosen),
        "log_over_compressed_history": log_bytes / history_bytes,
        "peak_mb": peak_rss_mb(),
        "history_mb_per_sample": history_chars / 1e6 / len(chosen),
    }


def in_subprocess(*args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, __file__, "--worker", *args], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    if result.stderr.strip():
        print(result.stderr, file=sys.stderr)
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shapes", nargs="+", default=["32k", "128k", "1M"])
    parser.add_argument(
        "--samples", type=int, default=100, help="samples measured; 0: the whole split"
    )
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS))
    parser.add_argument("--profile", action="store_true", help="pyinstrument the shared design")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        kind, *rest = args.worker
        if kind == "build":
            print(json.dumps(worker_build(*rest)))
        else:
            split, folder, design, samples, profile = rest
            print(json.dumps(worker_run(split, folder, design, int(samples), profile == "1")))
        return

    from inspect_personamem.datasets.v1.generator import generate_shape

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.servers.openai_api import serve_openai  # the tests' stand-in endpoint

    with tempfile.TemporaryDirectory() as tmp, serve_openai() as (url, requests):
        os.environ["OPENAI_BASE_URL"] = url  # inherited by the workers
        for split in args.shapes:
            folder = Path(tmp) / split
            start = time.perf_counter()
            _, contexts = generate_shape(folder, split)
            print(
                f"\n## {split} shape: contexts file {contexts.stat().st_size / 1e6:.0f} MB "
                f"(generated in {time.perf_counter() - start:.1f} s)"
            )
            build = in_subprocess("build", split, str(folder))
            print(
                f"build: {build['samples']} samples in {build['seconds']:.2f} s, "
                f"peak memory +{build['peak_mb']:.0f} MB"
            )
            print(
                f"run ({args.samples} samples): | design | harness s/sample | "
                "RSS growth MB/sample | .eval KB/sample | log / compressed history | peak RSS MB "
                "| history MB/sample |"
            )
            for design in args.designs:
                profile = "1" if args.profile and design == "shared" else "0"
                run = in_subprocess("run", split, str(folder), design, str(args.samples), profile)
                requests.clear()  # the stand-in keeps every request body
                print(
                    f"| {design} | {run['seconds_per_sample']:.3f} | "
                    f"{run['rss_growth_mb_per_sample']:.2f} | "
                    f"{run['log_bytes_per_sample'] / 1e3:.0f} | "
                    f"{run['log_over_compressed_history']:.2f} | {run['peak_mb']:.0f} | "
                    f"{run['history_mb_per_sample']:.2f} |"
                )


if __name__ == "__main__":
    main()
