"""Short, unique labels for runs, as figures and tables show them.

A label is the model name plus only what tells runs apart: the split when runs of
several splits are shown, each setting that differs between the runs, `subset N/M`
for a run over part of its split, and the start time when the same model and setting
were run more than once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .logs import SETTING_DEFAULTS, Run

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def run_labels(runs: Sequence[Run]) -> list[str]:
    """One label per run, in the order of `runs`."""
    parts: list[list[str]] = [[run.model] for run in runs]
    if len({run.split for run in runs}) > 1:
        for run, words in zip(runs, parts, strict=True):
            words.append(run.split)
    for key in SETTING_DEFAULTS:
        if len({run.settings[key] for run in runs}) > 1:
            for run, words in zip(runs, parts, strict=True):
                words.append(f"{key}={run.settings[key]}")
    for run, words in zip(runs, parts, strict=True):
        if run.subset:
            words.append(run.subset)
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
