"""Short, unique labels for runs, as figures and tables show them.

A label is the model name plus only what tells runs apart: the model arguments in
which runs of that model differ (`personamem/oracle (decay=0.1)`), the split when runs
of several splits are shown, how it saw the past and answered (`method_labels`:
`full history`, `no history`, `rag (bm25, top 4)`, `full history, logprob`,
`full history, open, graded by openai/gpt-4.1-mini`, ...) when runs differ in it or
any run's answers were graded (a grader is part of what an open run measured), and
always for an upper bound (`evidence only (upper bound)`: never read as a method), each
other setting that differs between the runs, `subset N/M` for a run over part of its
split, `not released data` for a run on another question file than the released one,
`synthetic data` for a run on generated data, and the start time when the same model,
setting and grader were run more than once.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from inspect_personamem.report.accuracy import RunSummary
from inspect_personamem.report.axes import axes_label, axis_settings
from inspect_personamem.report.read.identity import ModelId
from inspect_personamem.report.read.runs import Run

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def run_labels(runs: Sequence[Run]) -> list[str]:
    """One label per run, in the order of `runs`."""
    parts: list[list[str]] = [[model] for model in model_labels(runs)]
    if len({run.split for run in runs}) > 1:
        for run, words in zip(runs, parts, strict=True):
            words.append(run.split)
    methods = method_labels(runs)
    every = len(set(methods)) > 1 or any(run.grader for run in runs)
    for run, method, words in zip(runs, methods, parts, strict=True):
        if every or run.upper_bound:
            words.append(method)
    axes = frozenset[str]().union(*(axis_settings(run.entry) for run in runs))
    for key in dict.fromkeys(key for run in runs for key in run.settings):
        if key not in axes and len({run.settings.get(key) for run in runs}) > 1:
            for run, words in zip(runs, parts, strict=True):
                if key in run.settings:
                    words.append(f"{key}={run.settings[key]}")
    for run, words in zip(runs, parts, strict=True):
        words.extend(run.marks)
    counts = Counter(run.key for run in runs)
    for run, words in zip(runs, parts, strict=True):
        if counts[run.key] > 1:
            words.append(run.created.strftime(TIME_FORMAT))
    labels = [", ".join(words) for words in parts]
    seen: Counter[str] = Counter()
    for i, label in enumerate(labels):
        seen[label] += 1
        if seen[label] > 1:  # started within the same second
            labels[i] = f"{label} #{seen[label]}"
    return labels


def method_labels(runs: Sequence[Run]) -> list[str]:
    """How each run saw the past and answered (`settings.axes_label`), with the grader
    of open answers (`full history, open, graded by openai/gpt-4.1-mini`; `judged by`
    for a judge scoring against the label, `Run.judged`; a self-graded run's says `self-graded`,
    whether by `-T grader=self` or bound to the grader role)."""
    return [
        ", ".join([axes_label(run.settings, run.entry), *_grader_words(run, grader)])
        for run, grader in zip(runs, grader_labels(runs), strict=True)
    ]


def _grader_words(run: Run, grader: str) -> list[str]:
    """What a run's method label says of its grader, shown as `grader`."""
    if run.self_graded:
        return ["self-graded"]
    return [f"{_graded(run)} by {grader}"] if grader else []


def _graded(run: Run) -> str:
    """How its grader scored an open run: `judged` against the label (`Run.judged`),
    else `graded` by naming a candidate."""
    return "judged" if run.judged else "graded"


def grader_labels(runs: Sequence[Run]) -> list[str]:
    """The model bound to the grader role that graded each run's open answers, as labels
    show it (`id_labels` of `Grader.shown`, beside the models under test: with the
    arguments and generation settings in which it differs from the other graders and
    models of its name, so that a grader is never read as the model it is not); empty
    for a self-graded run and for answers no grader judged."""
    graders = sorted({run.grader for run in runs if run.grader and not run.self_graded})
    shown = id_labels([*(grader.shown for grader in graders), *(run.model_id for run in runs)])
    names = dict(zip(graders, shown, strict=False))  # the models' labels left out
    return [
        names[run.grader] if run.grader is not None and not run.self_graded else "" for run in runs
    ]


def model_labels(runs: Sequence[Run]) -> list[str]:
    """Each run's model as labels show it (`id_labels`)."""
    return id_labels([run.model_id for run in runs])


def id_labels(models: Sequence[ModelId]) -> list[str]:
    """Each model as labels show it: its name, with the model arguments in which the
    models of that name differ (`personamem/oracle (decay=0.1)`)."""
    by_name: dict[str, list[dict[str, str]]] = defaultdict(list)
    for name, args in models:
        by_name[name].append(dict(args))
    differing = {
        name: sorted(
            key
            for key in {key for args in same for key in args}
            if len({args.get(key) for args in same}) > 1
        )
        for name, same in by_name.items()
    }
    labels = []
    for name, args in models:
        given = dict(args)
        shown = [f"{k}={given[k]}" for k in differing[name] if k in given]
        labels.append(f"{name} ({', '.join(shown)})" if shown else name)
    return labels


def which_runs(named: Sequence[RunSummary], of: int) -> str:
    """`all 4 runs`, or the runs named: `1 of 4 runs: A`."""
    if len(named) == of:
        return f"all {of} runs" if of > 1 else "the run"
    return f"{len(named)} of {of} runs: " + "; ".join(s.label for s in named)
