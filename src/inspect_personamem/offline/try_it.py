"""`inspect-personamem try`: the whole path on a fresh machine, offline, in a minute.

Writes a PersonaMem-shaped split (the real question file when one is given, with
synthetic histories that fit its end indices; else fully synthetic; what it generates
is marked so, `data.provenance`, and every run that reads it labelled synthetic), or with
`--dataset v2` a small synthetic PersonaMem-v2 subset (run on its 32k histories),
runs the task with and without the history on the offline `personamem/oracle` model,
choosing among the options and answering openly (the oracle grading too), and writes
the report. Nothing it prints measures a real model.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspect_personamem.arg_types import POSITIVE_COUNT, PROBABILITY
from inspect_personamem.datasets.v1.generator import (
    contexts_for_questions,
    generate_split,
    write_contexts,
)
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.splits import SPLITS, Split, check_split
from inspect_personamem.datasets.v2.generator import BENCHMARK_SHAPE, V2Shape, generate_v2
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.types import BENCHMARKS

TITLE = "TRY-IT: the offline personamem/oracle model, not a real model"

V2_TASK = "inspect_personamem/personamem_v2_32k"
V2_QUESTIONS_PER_PERSONA = 10
"""At most, in the PersonaMem-v2 subset `try` writes."""

RUNS = (("choice", "full"), ("choice", "none"), ("open", "full"), ("open", "none"))
"""(answer, history) of the runs `try` makes: the oracle choosing among the options and
answering openly (graded by the oracle too), each with and without the history."""


def write_split(
    folder: Path, split: Split, questions: Path | None, *, count: int, seed: int
) -> Path:
    """Write a split into `folder`; return its question file. A given question file is
    copied byte for byte and read first, so a faulty one fails naming row and field."""
    folder.mkdir(parents=True, exist_ok=True)
    if questions is None:
        written, _ = generate_split(
            folder,
            split,
            contexts=max(1, count // 10),
            min_messages=40,
            max_messages=80,
            questions=count,
            seed=seed,
        )
        return written
    records = PERSONAMEM.read_questions(questions, split)
    target = folder / PERSONAMEM.questions_file(split)
    shutil.copyfile(questions, target)
    sizes = contexts_for_questions([record.columns for record in records])
    write_contexts(folder / PERSONAMEM.contexts_file(split), sizes, seed=seed)
    return target


def v2_shape(questions: int) -> V2Shape:
    """A small PersonaMem-v2 subset of `questions` questions, rounded up to spread them
    evenly over personas of at most ten; histories of 40-80 messages of the benchmark's
    sizes (a few thousand tokens: the snippet-to-query distances span several bins)."""
    personas = math.ceil(questions / V2_QUESTIONS_PER_PERSONA)
    per_persona = math.ceil(questions / personas)
    return dataclasses.replace(
        BENCHMARK_SHAPE,
        personas=personas,
        min_messages=40,
        max_messages=80,
        min_questions=per_persona,
        max_questions=per_persona,
    )


@dataclass(frozen=True)
class _Dataset:
    """What the runs ask: the task, and what writes its data into a folder (returning
    the question file the oracle reads)."""

    task: str
    write: Callable[[Path], Path]


def _dataset(args: argparse.Namespace) -> _Dataset:
    """The dataset `--dataset` names, its options checked (before anything is written)."""
    if args.dataset == "v2":
        given = [
            name
            for name, value in (("--questions", args.questions), ("--split", args.split))
            if value is not None
        ]
        if given:
            raise PersonaMemArgumentError(
                "--dataset v2 writes a synthetic PersonaMem-v2 subset: leave out "
                f"{' and '.join(given)}, which choose PersonaMem (v1) data"
            )
        shape = v2_shape(args.questions_count)
        return _Dataset(V2_TASK, lambda folder: generate_v2(folder, shape=shape, seed=args.seed))
    split = _split_of(args)
    return _Dataset(
        f"inspect_personamem/personamem_{split}",
        lambda folder: write_split(
            folder, split, args.questions, count=args.questions_count, seed=args.seed
        ),
    )


def _split_of(args: argparse.Namespace) -> Split:
    if args.split is not None:
        return check_split(args.split)
    if args.questions is None:
        return "32k"
    split = PERSONAMEM.split_of_questions(args.questions)
    if split is None:
        raise PersonaMemArgumentError(
            f"cannot tell the split of {args.questions} from its name; pass --split"
        )
    return split


def run(args: argparse.Namespace) -> int:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from inspect_personamem.report import build_report

    dataset = _dataset(args)
    logs = args.out / "logs"
    if logs.exists() and any(logs.iterdir()):
        raise PersonaMemArgumentError(
            f"{logs} already holds logs, which the report would mix in; "
            "remove it or pass another --out"
        )
    # absolute: a log keeps the oracle's model arguments as given, and a retry of it
    # from another folder must find the files
    data = (args.out / "data").absolute()
    questions = dataset.write(data)
    model_args = {
        "questions": str(questions),
        "accuracy": args.accuracy,
        "accuracy_without_history": args.accuracy_without_history,
        "decay": args.decay,
        "seed": args.seed,
    }
    oracle = get_model("personamem/oracle", **model_args)
    run_name = _run_name(*RUNS[0])  # the run a Ctrl-C interrupts
    try:
        kind = "real questions, generated histories" if args.questions else "generated"
        print(f"data: {data} ({kind}: runs that read generated files are labelled synthetic)")
        for answer, history in RUNS:
            run_name = _run_name(answer, history)
            logs_written = inspect_eval(
                dataset.task,
                task_args={"data_dir": str(data), "history": history, "answer": answer},
                model="personamem/oracle",
                model_args=model_args,
                # the oracle grades its own open replies: the same model, so self-graded
                model_roles={"grader": oracle} if answer == "open" else None,
                log_dir=str(logs),
                limit=args.limit,
                display="none",
            )
            if not logs_written:  # Inspect returns no log when it handled the interrupt
                return _interrupted(run_name, logs)
            log = logs_written[0]
            if log.status != "success":
                reason = log.error.message if log.error else "no error recorded"
                print(f"{run_name}: the run ended {log.status}: {reason}")
                return 1
            metrics = log.results.scores[0].metrics if log.results else {}
            accuracy = metrics["accuracy"].value if "accuracy" in metrics else float("nan")
            print(f"{run_name}: accuracy {accuracy:.3f} (log: {log.location})")
    except KeyboardInterrupt:  # a Ctrl-C outside Inspect's own handling of it
        return _interrupted(run_name, logs)
    report = build_report([logs], args.out / "report", title=TITLE)
    print(f"report: {report.index}")
    print(f"report says: {report.headline}")
    print(f"next: inspect view --log-dir {logs}")
    return 0


def _run_name(answer: str, history: str) -> str:
    return f"answer={answer}, history={history}"


def _interrupted(run_name: str, logs: Path) -> int:
    print(f"{run_name}: interrupted; what was written is in {logs}")
    return 130


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `try` subcommand."""
    parser = commands.add_parser(
        "try",
        help="run the whole path offline on the personamem/oracle model",
        description="Write a PersonaMem-shaped split (or a PersonaMem-v2 subset), run the "
        "task with and without the history on the offline personamem/oracle model (right "
        "with a chosen probability), choosing among the options and answering openly, and "
        "write the report. Needs no network, no API key and no download.",
    )
    parser.add_argument(
        "--dataset",
        choices=BENCHMARKS,
        default="v1",
        help="v1: PersonaMem (default); v2: a synthetic PersonaMem-v2 benchmark subset, "
        "run on personamem_v2_32k",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("personamem-try"), help="output folder (personamem-try)"
    )
    parser.add_argument(
        "--questions",
        type=Path,
        help="a real question file (e.g. questions_32k.csv) to ask, over synthetic histories; "
        "default: synthetic questions",
    )
    parser.add_argument("--split", choices=SPLITS, help="split (default: from --questions, or 32k)")
    parser.add_argument(
        "--questions-count",
        type=POSITIVE_COUNT,
        default=60,
        help="synthetic questions to write (60; v2: rounded up to fill personas of at most "
        "ten evenly)",
    )
    parser.add_argument("--limit", type=POSITIVE_COUNT, help="ask only the first N questions")
    parser.add_argument(
        "--accuracy", type=PROBABILITY, default=0.8, help="right with history (0.8)"
    )
    parser.add_argument(
        "--accuracy-without-history",
        type=PROBABILITY,
        default=0.4,
        help="right without history (0.4)",
    )
    parser.add_argument(
        "--decay",
        type=PROBABILITY,
        default=0.04,
        help="less, for each session elapsed since the fact asked about past the first (v2: "
        "each bin of its distance in tokens past the first, <1k) (0.04)",
    )
    parser.add_argument("--seed", type=int, default=0, help="data and answers (0)")
    parser.set_defaults(handler=run)
