"""Short, unique labels for runs, as figures and tables show them.

A label is the model name plus only what tells runs apart: the model arguments in
which runs of that model differ (`personamem/oracle (decay=0.1)`), the split when runs
of several splits are shown, how it saw the past and answered (`settings.axes_label`:
`full history`, `no history`, `rag (bm25, top 4)`, `full history, logprob`, ...) when
runs differ in it, each other setting that differs
between the runs, `subset N/M` for a run over part of its split, `not released data`
for a run on another question file than the released one, and the start time when
the same model and setting were run more than once.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from ..settings import axes_label, axis_settings
from .logs import Run, setting_defaults

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def run_labels(runs: Sequence[Run]) -> list[str]:
    """One label per run, in the order of `runs`."""
    parts: list[list[str]] = [[model] for model in model_labels(runs)]
    if len({run.split for run in runs}) > 1:
        for run, words in zip(runs, parts, strict=True):
            words.append(run.split)
    methods = [axes_label(run.settings) for run in runs]
    if len(set(methods)) > 1:
        for method, words in zip(methods, parts, strict=True):
            words.append(method)
    axes = axis_settings()
    for key in setting_defaults():
        if key not in axes and len({run.settings[key] for run in runs}) > 1:
            for run, words in zip(runs, parts, strict=True):
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


def model_labels(runs: Sequence[Run]) -> list[str]:
    """Each run's model as labels show it: its name, with the model arguments in which
    the runs of that name differ (`personamem/oracle (decay=0.1)`)."""
    by_name: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        by_name[run.model].append(run)
    differing = {
        name: sorted(
            key
            for key in {key for run in same for key in run.model_args}
            if len({run.model_args.get(key) for run in same}) > 1
        )
        for name, same in by_name.items()
    }
    labels = []
    for run in runs:
        args = [f"{k}={run.model_args[k]}" for k in differing[run.model] if k in run.model_args]
        labels.append(f"{run.model} ({', '.join(args)})" if args else run.model)
    return labels
