"""Start-up time at the real splits' shapes: building the task against parsing its
contexts into Inspect messages alone, side by side in one process.

For each shape (synthetic files with the real splits' shapes, `synthetic.SHAPES`):

- `parse`: every line of the split's context file read, decoded from JSON and each
  message made an Inspect `ChatMessage`, nothing checked: the floor of any start-up
  that holds the histories as Inspect messages;
- `build`: `TASKS["personamem"](split=..., data_dir=...)`, the whole task: the question file
  read and validated, the contexts indexed, parsed and checked, every sample built
  (the process's context-store cache emptied first, so each build parses afresh).

The two alternate, `--repeats` times each; printed are the best time of each and
build / parse.

    PYTHONPATH=src python benchmarks/startup.py [--shapes 1M] [--repeats 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.datasets.v1.generator import generate_shape
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.splits import Split, check_split
from inspect_personamem.run.tasks import TASKS

ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def parse_contexts(path: Path) -> int:
    """Every context of `path` as Inspect messages, unchecked; the number of messages."""
    count = 0
    with path.open("rb") as file:
        for line in file:
            (messages,) = json.loads(line).values()
            parsed = [ROLES[m["role"]](content=m["content"]) for m in messages]
            count += len(parsed)
    return count


def build_task(split: Split, folder: Path) -> int:
    """The whole task, contexts parsed afresh; the number of samples."""
    open_context_store.cache_clear()
    return len(TASKS["personamem"](split=split, data_dir=str(folder)).dataset)


def best_of(repeats: int, steps: dict[str, Callable[[], int]]) -> dict[str, float]:
    """Best seconds of each step, the steps alternating so that both see the same load."""
    best = {name: float("inf") for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            gc.collect()
            start = time.perf_counter()
            step()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shapes", nargs="+", default=["1M"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--data", type=Path, help="keep the generated files here (reused when present)"
    )
    args = parser.parse_args()
    # synthetic files are not the released ones, which each build would warn about
    logging.getLogger("inspect_personamem.data.files").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.data or Path(tmp)
        print("| shape | messages | parse s | build s | build / parse |")
        print("|---|---:|---:|---:|---:|")
        for shape in args.shapes:
            split = check_split(shape)
            folder = root / split
            contexts = folder / PERSONAMEM.contexts_file(split)
            if not (contexts.is_file() and (folder / PERSONAMEM.questions_file(split)).is_file()):
                generate_shape(folder, split)
            messages = parse_contexts(contexts)
            best = best_of(
                args.repeats,
                {
                    "parse": functools.partial(parse_contexts, contexts),
                    "build": functools.partial(build_task, split, folder),
                },
            )
            print(
                f"| {split} | {messages} | {best['parse']:.2f} | {best['build']:.2f} | "
                f"{best['build'] / best['parse']:.2f} |"
            )


if __name__ == "__main__":
    main()
