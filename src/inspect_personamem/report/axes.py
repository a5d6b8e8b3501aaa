"""The report's words for how a run saw the past and answered, read off the axis tables
and the run's dataset version."""

from __future__ import annotations

from typing import Any

from inspect_personamem.datasets.base import DatasetVersion
from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.parameters import Point, Settings


def axes_label(settings: Settings, version: DatasetVersion[Any]) -> str:
    """How a run saw the past and answered, in words: `full history`, `no history`,
    `rag (bm25, top 4)`, `memory (mem0)`, `full history, logprob`; the version's own
    words after them (`open, preference judge`)."""
    point = Point.of(settings, version.histories, version.answers)
    words = [*point.label(settings), *version.label_words(settings)]
    return ", ".join(word for word in words if word)


def axis_settings(version: DatasetVersion[Any]) -> frozenset[str]:
    """Settings that say how a run saw the past and answered (the axes, their values'
    parameters, and the version's own that say how, `Parameter.says_how`); the others
    say what it answered (data, prompt): a report groups runs that differ only in these."""
    values = (*version.histories.values(), *version.answers.values())
    own = {p.name for p in version.own if p.says_how}
    return frozenset({"history", "answer"} | own | {p.name for v in values for p in v.parameters})


def history_settings(settings: Settings, history: str) -> dict[str, Any]:
    """The settings of the run of the same answer and other settings that saw the past
    by `history`, every history source's parameter (any version's: PersonaMem-v3's apps
    agent's too) at its default: a run a run is measured against."""
    other = dict(settings, history=history)
    for version in VERSIONS.values():
        for value in version.histories.values():
            other.update({p.name: str(p.default) for p in value.parameters if p.name in settings})
    return other


def no_history_settings(settings: Settings) -> dict[str, Any]:
    """The settings of the run a run's gain from the history is measured against: the
    same answer with `history=none`."""
    return history_settings(settings, "none")


def evidence_settings(settings: Settings) -> dict[str, Any]:
    """The settings of the upper bound a retrieval run is measured against: the same
    answer shown only each question's evidence (`history=evidence`)."""
    return history_settings(settings, "evidence")


def full_settings(settings: Settings) -> dict[str, Any]:
    """The settings of the run that saw the whole history before each question
    (`history=full`), a retrieval run's other reference."""
    return history_settings(settings, "full")


def comparable_rag_settings(settings: Settings) -> dict[str, Any]:
    """For a run whose model searched the history itself (`history=tools`) with a
    retriever, the settings of the `rag` run handed as many items (`top_k`) by that
    retriever: the retrieval chosen for the model beside the one it chose. Other runs,
    and a search by a memory system, have none (no settings match no run)."""
    if str(settings.get("history")) != "tools" or str(settings.get("search")) == "memory":
        return {}
    other = history_settings(settings, "rag")
    shared = ("top_k", "embedder", "embedding_cache")
    other.update({name: str(settings[name]) for name in shared if name in settings})
    other["retriever"] = str(settings["search"])
    return other
