"""The report's words for how a run saw the past and answered (`report/axes.py`): its
label, the settings that say how (the axes), and the settings of the runs it is
measured against (no history, the upper bound, the full history, the comparable RAG)."""

from __future__ import annotations

from inspect_personamem.datasets.registry import VERSIONS
from inspect_personamem.report.axes import (
    axes_label,
    axis_settings,
    comparable_rag_settings,
    evidence_settings,
    full_settings,
    no_history_settings,
)
from inspect_personamem.report.read.runs import setting_defaults

V1, V2 = VERSIONS["v1"], VERSIONS["v2"]


def settings(version: str = "v1", **changed: str) -> dict[str, str]:
    """A run's settings: the task's defaults but those `changed`."""
    return setting_defaults(version) | changed


def test_a_label_says_the_history_the_answer_and_the_versions_own_words() -> None:
    assert axes_label(settings(), V1) == "full history"
    assert axes_label(settings(history="none"), V1) == "no history"
    rag = settings(history="rag", retriever="bm25", top_k="4")
    assert axes_label(rag, V1) == "rag (bm25, top 4)"
    assert axes_label(settings(answer="logprob"), V1) == "full history, logprob"
    judged = settings("v2", answer="open", judge="preference")
    assert axes_label(judged, V2) == "full history, open, preference judge"


def test_the_axes_are_history_answer_their_parameters_and_the_versions_own_that_say_how() -> None:
    """What a run answered (its data, its repository) is no axis; how it saw the past
    and answered is, and so is a version's own setting that says how."""
    v1 = axis_settings(V1)
    assert {"history", "answer", "retriever", "top_k", "memory", "grader"} <= v1
    assert not {"repo_id", "revision", "negative_end_index"} & v1
    assert "judge" in axis_settings(V2)


def test_a_reference_run_has_every_history_parameter_at_its_default() -> None:
    """A BM25 RAG run over 4 items with the logprob answer is measured against the
    logprob run of no history, of the evidence and of the full history: retriever and
    top_k back at their defaults, the answer and other settings as they were."""
    rag = settings(history="rag", retriever="bm25", top_k="4", answer="logprob", shuffle="3")
    for reference, history in (
        (no_history_settings, "none"), (evidence_settings, "evidence"), (full_settings, "full"),
    ):  # fmt: skip
        assert reference(rag) == settings(history=history, answer="logprob", shuffle="3")


def test_a_search_by_the_model_is_set_beside_the_rag_run_of_its_retriever_and_top_k() -> None:
    tools = settings(history="tools", search="bm25", top_k="3")
    assert comparable_rag_settings(tools) == settings(history="rag", retriever="bm25", top_k="3")
    assert comparable_rag_settings(settings(history="tools", search="memory")) == {}
    assert comparable_rag_settings(settings(history="rag", retriever="bm25")) == {}
