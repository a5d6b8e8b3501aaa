"""Build time, memory, harness time and log size at the real shapes of each dataset.

For each shape (synthetic files with the real counts and message lengths: PersonaMem's
splits, `--dataset v1`, see `datasets/v1/generator.SHAPES`; PersonaMem-v2's benchmark
subset at each history length, `--dataset v2`, 200 personas' 32k and 128k histories
and their questions, see `datasets/v2/generator.BENCHMARK_SHAPE`), each measurement
runs in a fresh Python process:

1. `build`: time and peak memory to create the task (read the questions, index and
   parse the histories, build every sample).
2. `run`: an end-to-end `inspect eval` of N samples spread over the dataset (every
   k-th, so that histories are as long as the dataset's on average), after a warm-up
   run of N/2 other samples in the same process, with a stand-in model that answers at
   once (mockllm, in the version's answer form), for these designs side by side:
   - `shared` (this package): history joined at solve time from one shared store,
     removed from the logged messages after generation; Inspect's defaults, as the
     `inspect eval` command runs it;
   - `shared-no-realtime`: the same with `--no-log-realtime`;
   - `shared-lean`: the same with `--no-log-realtime --no-log-model-api` (the model
     call's raw request is not logged; the messages sent still are, in the event);
   - `naive-log`: the same, but the history left in the logged messages
     (`keep_history_in_log=True`);
   - `naive-input`: a bare Inspect task carrying the same histories, each copied into
     its sample's `Sample.input` (the same samples, `generate()`, the same scorer);
   - `rag-bm25`, `rag-dense`: `history=rag` (the 5 most similar messages instead of the
     history) with BM25, or dense embeddings from a stand-in of an OpenAI-compatible
     `/v1/embeddings` endpoint on loopback (`tests/support/servers/openai_api.py`, no model), no
     embedding cache; ingestion and retrieval are in the harness time.
   Printed per sample of the measured run: harness seconds, growth of resident memory
   (after the warm-up, so one-time costs are left out), `.eval` bytes, and the log
   bytes as a multiple of one compressed copy of the sample's history (zstd at its
   default level, the compression `.eval` files use).

Usage: python benchmarks/scale.py [--dataset v1|v2] [--shapes 32k 128k 1M] [--samples 100]
       [--designs ...] [--profile]; `--samples 0 --designs shared` runs a whole split.
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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import zstandard
from inspect_ai import Task
from inspect_ai.model import ChatMessage

DESIGNS = (
    "shared",
    "shared-no-realtime",
    "shared-lean",
    "naive-log",
    "naive-input",
    "rag-bm25",
    "rag-dense",
)
REPLIES = {"v1": "<final_answer>(a)", "v2": "Final Answer: A"}
"""The stand-in model's reply, in the form each version's answer rule reads."""


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


def package_task(dataset: str, shape: str, folder: str, **task_args: Any) -> Task:
    """The version's task at `shape` (its split, or its history length) on `folder`."""
    from inspect_personamem.datasets.registry import VERSIONS
    from inspect_personamem.run.tasks import TASKS

    version = VERSIONS[dataset]
    task: Task = TASKS[version.task](**{version.fixed: shape}, data_dir=folder, **task_args)
    return task


def histories(
    dataset: str, shape: str, folder: str
) -> Callable[[Mapping[str, Any]], Sequence[ChatMessage]]:
    """A sample's history (`data.contexts.sample_history`) from its metadata, the
    version's histories read as its task reads them."""
    from inspect_personamem.data.contexts import sample_history
    from inspect_personamem.datasets.registry import VERSIONS
    from inspect_personamem.run.arguments import all_arguments

    version = VERSIONS[dataset]
    arguments = all_arguments({version.fixed: shape, "data_dir": folder}, {}, version)
    contexts = version.load(arguments, True).contexts
    return lambda metadata: sample_history(contexts, metadata)


def worker_build(dataset: str, shape: str, folder: str) -> dict[str, Any]:
    before = rss_mb()
    start = time.perf_counter()
    task = package_task(dataset, shape, folder)
    return {
        "seconds": time.perf_counter() - start,
        "peak_mb": peak_rss_mb() - before,
        "samples": len(task.dataset),
    }


def naive_input_task(dataset: str, shape: str, folder: str) -> Task:
    """The design this package avoids: a bare task whose every sample carries its own
    copy of its history in its input (the package's samples and scorer)."""
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.model import ChatMessageUser
    from inspect_ai.solver import generate

    task = package_task(dataset, shape, folder)
    history = histories(dataset, shape, folder)
    samples = []
    for sample in task.dataset:
        asked = sample.input
        question = [ChatMessageUser(content=asked)] if isinstance(asked, str) else list(asked)
        messages = [m.model_copy() for m in history(sample.metadata or {})] + question
        samples.append(sample.model_copy(update={"input": messages}))
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=task.scorer)


def worker_run(
    dataset: str, shape: str, folder: str, design: str, samples: int, profile: bool
) -> dict[str, Any]:
    """Warm up on `samples // 2` samples, then measure a run of `samples` others;
    `samples=0` runs the whole dataset with no warm-up."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from inspect_personamem.history.retrieved import DEFAULT_EMBEDDER

    def reply(*_: Any) -> ModelOutput:
        output = ModelOutput.from_content("mockllm", REPLIES[dataset])
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    if design == "naive-input":
        task = naive_input_task(dataset, shape, folder)
    elif design.startswith("rag-"):
        retriever: Literal["dense", "bm25"] = "dense" if design == "rag-dense" else "bm25"
        task = package_task(
            dataset,
            shape,
            folder,
            history="rag",
            retriever=retriever,
            embedding_cache="none",
            embedder="openai/stand-in" if retriever == "dense" else DEFAULT_EMBEDDER,
        )
    else:
        task = package_task(dataset, shape, folder, keep_history_in_log=design == "naive-log")
    # every k-th sample, so that the histories measured are as long as the dataset's on average
    if samples == 0:
        chosen, warm = list(task.dataset), []
    else:
        warm_up = samples // 2
        spread = list(task.dataset)[:: max(1, len(task.dataset) // (samples + warm_up))]
        chosen, warm = spread[warm_up : warm_up + samples], spread[:warm_up]
    # one compressed copy of each sample's history, the floor for what a log must hold
    history = histories(dataset, shape, folder)
    history_bytes = 0
    history_chars = 0
    compressor = zstandard.ZstdCompressor()  # level 3, as Inspect's .eval writer uses
    for sample in chosen:
        messages = history(sample.metadata or {})
        text = json.dumps([{"role": m.role, "content": m.text} for m in messages])
        history_bytes += len(compressor.compress(text.encode()))
        history_chars += sum(len(m.text) for m in messages)
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


def generate(dataset: str, shape: str, folder: Path) -> str:
    """Write the synthetic files of `shape` into `folder` (PersonaMem-v2's benchmark
    subset, both lengths at once, where not already written); say what was written."""
    start = time.perf_counter()
    if dataset == "v1":
        from inspect_personamem.datasets.v1.generator import generate_shape
        from inspect_personamem.datasets.v1.splits import check_split

        _, contexts = generate_shape(folder, check_split(shape))
        size = contexts.stat().st_size
    else:
        from inspect_personamem.datasets.v2.generator import generate_v2

        if not folder.exists():
            generate_v2(folder)
        size = sum(f.stat().st_size for f in folder.glob(f"data/chat_history_{shape}/*.json"))
    seconds = time.perf_counter() - start
    return f"history files {size / 1e6:.0f} MB (generated in {seconds:.1f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", choices=tuple(REPLIES), default="v1")
    parser.add_argument("--shapes", nargs="+", help="default: every split (v1), length (v2)")
    parser.add_argument(
        "--samples", type=int, default=100, help="samples measured; 0: the whole dataset"
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
            dataset, shape, folder, design, samples, profile = rest
            result = worker_run(dataset, shape, folder, design, int(samples), profile == "1")
            print(json.dumps(result))
        return

    from inspect_personamem.datasets.registry import VERSIONS

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.servers.openai_api import serve_openai  # the tests' stand-in endpoint

    dataset = args.dataset
    with tempfile.TemporaryDirectory() as tmp, serve_openai() as (url, requests):
        os.environ["OPENAI_BASE_URL"] = url  # inherited by the workers
        for shape in args.shapes or VERSIONS[dataset].fixed_values:
            folder = Path(tmp) / (shape if dataset == "v1" else "v2")
            print(f"\n## {dataset} {shape} shape: {generate(dataset, shape, folder)}")
            build = in_subprocess("build", dataset, shape, str(folder))
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
                run = in_subprocess(
                    "run", dataset, shape, str(folder), design, str(args.samples), profile
                )
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
