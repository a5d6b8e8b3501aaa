"""`inspect-personamem try`: the whole path on a fresh machine, offline, in a minute.

Writes the data of the dataset version `--dataset` names (the registry's first by
default) as its entry declares (`DatasetVersion.trying`: what it generates is marked so,
`data.provenance`, and every run that reads it labelled synthetic), runs its task with
and without the history on the offline `personamem/oracle` model, choosing among the
options and answering openly (the oracle grading too), and, choosing, with the
question's evidence alone (the upper bound), with what BM25 retrieves of the history
(which needs no model or download) and with the oracle searching and reading the
history itself through tools (`history=tools`); grades the open full-history run's
replies again with a second offline grader, as a user re-grades a run (Inspect's
`score`), and writes the report, with the two gradings side by side; it exits 0 only
where every run is complete (the report's `Run.complete`: succeeded, every question
scored), 1 where one is not or fails, 130 where interrupted. A version may
declare runs of its own instead (`Trial.runs`: PersonaMem-v3's oracle with and without
the history, the oracle always right and the floor). Nothing it prints measures a real
model.
"""

from __future__ import annotations

import argparse
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_personamem.arg_types import POSITIVE_COUNT, PROBABILITY, add_version_options
from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.declared import (
    Offline,
    ToolOption,
    Trial,
    TrialRun,
    Try,
    options_by_flag,
)
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.errors import PersonaMemArgumentError
from inspect_personamem.offline.oracle import NAME as ORACLE

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

TITLE = "TRY-IT: the offline personamem/oracle model, not a real model"

RUNS: tuple[TrialRun, ...] = (
    TrialRun({"answer": "choice", "history": "full"}),
    TrialRun({"answer": "choice", "history": "none"}),
    TrialRun({"answer": "choice", "history": "evidence"}),
    TrialRun({"answer": "choice", "history": "rag", "retriever": "bm25"}),
    TrialRun({"answer": "choice", "history": "tools"}),
    TrialRun({"answer": "open", "history": "full"}, graded=True),
    TrialRun({"answer": "open", "history": "none"}, graded=True),
)
"""The runs `try` makes where a version names none of its own (`Trial.runs`): the
oracle choosing among the options and answering openly (graded by the oracle too), each
with and without the history; choosing, also with the evidence alone, with BM25
retrieval and searching the history through tools, so that the retrieval runs stand
beside their upper bound and the full history."""
REGRADED = next(run for run in RUNS if run.task_args == {"answer": "open", "history": "full"})
"""The run whose replies `try` grades again (`_regrade`): answering openly, with the
history."""
SECOND_GRADER: dict[str, Any] = {"grading": "first"}
"""The second grader's model arguments: the oracle naming the first candidate shown
whatever the reply (`offline.grading.GRADINGS`), a grader all position, so that the
report's trial and agreement tables have a grader to find wanting."""


def tried() -> dict[str, tuple[DatasetVersion[Any], Try, Offline]]:
    """The versions `try` offers by key, each with what it writes and what the offline
    oracle, which answers their runs, reads: those that declare both
    (`DatasetVersion.trying`, `DatasetVersion.offline`)."""
    return {
        key: (version, version.trying, version.offline)
        for key, version in VERSIONS.items()
        if version.trying is not None and version.offline is not None
    }


def version_options() -> dict[str, tuple[ToolOption, list[DatasetVersion[Any]]]]:
    """Every version's own `try` options by flag, with the versions taking each."""
    return options_by_flag((version, trying.options) for version, trying, _ in tried().values())


def _trial(args: argparse.Namespace) -> Trial:
    """The trial of the version `--dataset` names, its options checked (before anything
    is written): another version's options are refused in one line."""
    chosen, trying, _ = tried()[args.dataset]
    foreign = [
        (flag, owners)
        for flag, (option, owners) in version_options().items()
        if chosen not in owners and getattr(args, option.dest) is not None
    ]
    if foreign:
        given = " and ".join(flag for flag, _ in foreign)
        owners = {f"{v.name} ({v.key})": None for _, versions in foreign for v in versions}
        raise PersonaMemArgumentError(
            f"--dataset {chosen.key} writes {trying.writes}: leave out {given}, which "
            f"choose {' or '.join(owners)} data"
        )
    own = {option.dest: getattr(args, option.dest) for option in trying.options}
    return trying.trial(own, args.questions_count, args.seed)


def run(args: argparse.Namespace) -> int:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from inspect_personamem.report import build_report

    trial = _trial(args)
    logs = args.out / "logs"
    if logs.exists() and any(logs.iterdir()):
        raise PersonaMemArgumentError(
            f"{logs} already holds logs, which the report would mix in; "
            "remove it or pass another --out"
        )
    # absolute: a log keeps the oracle's model arguments as given, and a retry of it
    # from another folder must find the files
    data = (args.out / "data").absolute()
    questions = trial.write(data)
    model_args = {
        "questions": str(questions),
        "accuracy": args.accuracy,
        "accuracy_without_history": args.accuracy_without_history,
        "decay": args.decay,
        "seed": args.seed,
    }
    oracle = get_model(ORACLE, **model_args)
    runs = trial.runs or RUNS
    run_name = _run_name(runs[0])  # the run a Ctrl-C interrupts
    try:
        print(
            f"data: {data} ({trial.described}: runs that read generated files are labelled "
            "synthetic)"
        )
        for planned in runs:
            run_name = _run_name(planned)
            if planned.needs is not None and find_spec(planned.needs[0]) is None:
                module, extra = planned.needs
                print(
                    f"{run_name}: skipped: it needs the `{module}` package, not installed "
                    f"here (pip install -e '.[{extra}]')"
                )
                continue
            oracle_args = model_args if planned.model == ORACLE else {}
            logs_written = inspect_eval(
                trial.task,
                task_args={"data_dir": str(data), **planned.task_args},
                model=planned.model,
                model_args={**oracle_args, **planned.model_args},
                # the oracle grades its own open replies: the same model, so self-graded
                model_roles={"grader": oracle} if planned.graded else None,
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
            print(f"{run_name}: accuracy {_accuracy(log):.3f} (log: {log.location})")
            if planned is REGRADED:
                run_name = f"{run_name}, re-graded"
                regraded = _regrade(log.location)
                second = " ".join(f"-M {k}={v}" for k, v in SECOND_GRADER.items())
                print(
                    f"{run_name} by personamem/oracle {second} (names the first candidate "
                    f"shown): accuracy {_accuracy(regraded):.3f} (log: {regraded.location})"
                )
    except KeyboardInterrupt:  # a Ctrl-C outside Inspect's own handling of it
        return _interrupted(run_name, logs)
    report = build_report([logs], args.out / "report", title=TITLE)
    print(f"report: {report.index}")
    print(f"report says: {report.headline}")
    print(f"next: inspect view --log-dir {logs}")
    incomplete = [s.label for s in report.summaries if not s.run.complete]
    if incomplete:
        print(f"incomplete: {'; '.join(incomplete)}: exit status 1")
        return 1
    return 0


def _accuracy(log: EvalLog) -> float:
    """A log's stored accuracy; NaN where it has none."""
    metrics = log.results.scores[0].metrics if log.results else {}
    return float(metrics["accuracy"].value) if "accuracy" in metrics else float("nan")


def _regrade(location: str) -> EvalLog:
    """The open run's log at `location` graded again by the second grader
    (`SECOND_GRADER`), as docs/open-answers.md shows a user re-grading a run: Inspect's
    `score` with the grader role bound to another model, written beside it as
    `<log>-regraded.eval`."""
    from inspect_ai import score
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import get_model

    from inspect_personamem.scoring.grader.scorer import graded_scorer

    second = get_model("personamem/oracle", **SECOND_GRADER)
    regraded = score(
        read_eval_log(location),
        graded_scorer(),
        model_roles={"grader": second},
        action="overwrite",
        display="none",
    )
    path = Path(location)
    regraded.location = str(path.with_name(f"{path.stem}-regraded{path.suffix}"))
    write_eval_log(regraded, regraded.location)
    return regraded


def _run_name(run: TrialRun) -> str:
    """`answer=choice, history=rag, retriever=bm25`, and the model where it is not the
    oracle as `try` is given it (`personamem/floor -M rule=question`)."""
    words = [f"{name}={value}" for name, value in run.task_args.items()]
    if run.model != ORACLE or run.model_args:
        words.append(" ".join([run.model, *(f"-M {k}={v}" for k, v in run.model_args.items())]))
    return ", ".join(words)


def _interrupted(run_name: str, logs: Path) -> int:
    print(f"{run_name}: interrupted; what was written is in {logs}")
    return 130


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the `try` subcommand."""
    parser = commands.add_parser(
        "try",
        help="run the whole path offline on the personamem/oracle model",
        description="Write a small dataset of the chosen version, run its task with and "
        "without the history on the offline personamem/oracle model (right with a chosen "
        "probability), choosing among the options and answering openly, and, choosing, "
        "with the evidence alone, with BM25 retrieval and searching the history through "
        "tools; grade the open replies again with a second offline grader, and write the "
        "report. Needs no network, no API key and no download.",
    )
    offered = tried()
    parser.add_argument(
        "--dataset",
        choices=tuple(offered),
        default=next(iter(offered)),
        help="; ".join(f"{key}: {trying.writes}" for key, (_, trying, _) in offered.items())
        + " (default: the first)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("personamem-try"), help="output folder (personamem-try)"
    )
    add_version_options(parser, version_options())
    parser.add_argument(
        "--questions-count",
        type=POSITIVE_COUNT,
        default=60,
        help="synthetic questions to write (60; a version may round it up to fill its "
        "histories evenly)",
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
        help="less, for each step the fact asked about lies back, past the first ("
        + "; ".join(f"{key}: {offline.steps}" for key, (_, _, offline) in offered.items())
        + ") (0.04)",
    )
    parser.add_argument("--seed", type=int, default=0, help="data and answers (0)")
    parser.set_defaults(handler=run)
