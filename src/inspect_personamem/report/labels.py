"""Short, unique labels for runs, as figures and tables show them.

A label is the model name plus only what tells runs apart: the model arguments in
which runs of that model differ (`personamem/oracle (decay=0.1)`), the split when runs
of several splits are shown, the method (`method_label`: `full history`, `no history`,
`rag (bm25, top 4)`, ...) when methods differ, each other setting that differs
between the runs, `subset N/M` for a run over part of its split, `not released data`
for a run on another question file than the released one, and the start time when
the same model and setting were run more than once.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from .logs import SETTING_DEFAULTS, Run

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def run_labels(runs: Sequence[Run]) -> list[str]:
    """One label per run, in the order of `runs`."""
    parts: list[list[str]] = [[model] for model in model_labels(runs)]
    if len({run.split for run in runs}) > 1:
        for run, words in zip(runs, parts, strict=True):
            words.append(run.split)
    methods = [method_label(run.settings) for run in runs]
    if len(set(methods)) > 1:
        for method, words in zip(methods, parts, strict=True):
            words.append(method)
    for key in SETTING_DEFAULTS:
        if key not in METHOD_SETTINGS and len({run.settings[key] for run in runs}) > 1:
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


RETRIEVAL_SETTINGS = ("retriever", "embedder", "top_k", "memory", "memory_config", "memory_prompt")
"""Settings of `method=rag` and `method=memory` only."""
METHOD_SETTINGS = ("history", "method", "normalization", "context_window", *RETRIEVAL_SETTINGS)
"""Settings that say how a run answered; the others say what it answered (data, prompt)."""


def method_label(settings: Mapping[str, str]) -> str:
    """How a run answered, in words: `full history`, `no history`, `rag (dense, top 5)`,
    `memory (mem0)`, `logprob, full history`; a non-default setting of the method is
    added (`rag (dense, BAAI/bge-small-en, top 5, paper prompt)`)."""
    method, history = settings["method"], f"{settings['history']} history"

    def changed(*keys: str) -> list[str]:
        return [settings[k] for k in keys if settings[k] != SETTING_DEFAULTS[k]]

    if method == "rag":
        embedder = changed("embedder") if settings["retriever"] == "dense" else []
        words = [settings["retriever"], *embedder, f"top {settings['top_k']}"]
    elif method == "memory":
        words = [settings["memory"], *changed("memory_config")]
        words += [f"top {k}" for k in changed("top_k")]
    elif method == "logprob":
        return ", ".join(["logprob", history, *changed("normalization", "context_window")])
    else:
        return history.replace("none history", "no history")
    if settings["memory_prompt"] != SETTING_DEFAULTS["memory_prompt"]:
        words.append(f"{settings['memory_prompt']} prompt")
    return f"{method} ({', '.join(words)})"


def baseline_settings(settings: Mapping[str, str]) -> dict[str, str]:
    """The settings of the no-history run a run's gain is measured against: its own
    method without the history, or for `rag` and `memory` (which need a history) the
    official prompt without one."""
    baseline = dict(settings, history="none")
    if settings["method"] in ("rag", "memory"):
        baseline.update(method="generate", **{k: SETTING_DEFAULTS[k] for k in RETRIEVAL_SETTINGS})
    return baseline
