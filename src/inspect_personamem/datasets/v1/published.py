"""PersonaMem's published results (package data, `paper/`) and which model is which.

The 128k tables per question type and per sessions elapsed, and the memory and
retrieval numbers the authors give as text (`published_methods.csv`).

The tables (see `paper/SOURCE.md`) name models as the paper does (`GPT-4o`,
`Claude-3.7-Sonnet`); Inspect names them by provider and API id. The mapping
between the two is explicit, never guessed: `DEFAULT_NAMES` below, which a user
extends or overrides with `--published-name MODEL=NAME` (an empty NAME turns a
default off). Published names in the tables: Gemini-1.5-Flash, GPT-4.5,
Gemini-2.0-Flash, o1, Gemini-2.0-Flash-Lite, DeepSeek-R1-671B, GPT-4o,
Llama-4-Maverick, GPT-4o-mini, o3-mini, Claude-3.5-Haiku, Llama-3.1-405B,
Claude-3.7-Sonnet, plus Average and Random Guess. GPT-4.1 and o4-mini are not in them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from functools import cache
from importlib.resources import files

from inspect_personamem.datasets.declared import PublishedMethod, PublishedModel
from inspect_personamem.datasets.v1.question_types import (
    ACKNOWLEDGE_PREFERENCES,
    GENERALIZE,
    NEW_IDEAS,
    RECALL_FACTS,
    RECOMMENDATIONS,
    REVISIT_REASONS,
    TRACK_EVOLUTION,
)
from inspect_personamem.history.table import HISTORIES, MemorySettings

BY_QUESTION_TYPE = "published_128k_by_question_type.csv"
BY_SESSIONS = "published_128k_by_sessions_elapsed.csv"
BY_METHOD = "published_methods.csv"
SPLIT = "128k"
"""The split the published tables are about: only runs of this split are compared."""

PUBLISHED_CATEGORIES: dict[str, str] = {
    "Recall User Shared Facts": RECALL_FACTS,
    "Acknowledge Latest User Preference": ACKNOWLEDGE_PREFERENCES,
    "Tracking Full Preference Evolution": TRACK_EVOLUTION,
    "Revisit Reasons Behind Preference Updates": REVISIT_REASONS,
    "Provide Preference Aligned Recommendations": RECOMMENDATIONS,
    "Generalize Reasons to New Scenarios": GENERALIZE,
    "Suggest New Ideas": NEW_IDEAS,
}
"""Row titles of the published question-type table -> paper category key."""

DEFAULT_NAMES: dict[str, str] = {
    "openai/gpt-4.5-preview": "GPT-4.5",
    "openai/gpt-4o": "GPT-4o",
    "openai/gpt-4o-mini": "GPT-4o-mini",
    "openai/o1": "o1",
    "openai/o3-mini": "o3-mini",
    "google/gemini-1.5-flash": "Gemini-1.5-Flash",
    "google/gemini-2.0-flash": "Gemini-2.0-Flash",
    "google/gemini-2.0-flash-lite": "Gemini-2.0-Flash-Lite",
    "anthropic/claude-3-5-haiku-20241022": "Claude-3.5-Haiku",
    "anthropic/claude-3-5-haiku-latest": "Claude-3.5-Haiku",
    "anthropic/claude-3-7-sonnet-20250219": "Claude-3.7-Sonnet",
    "anthropic/claude-3-7-sonnet-latest": "Claude-3.7-Sonnet",
    "together/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8": "Llama-4-Maverick",
    "together/meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo": "Llama-3.1-405B",
    "together/deepseek-ai/DeepSeek-R1": "DeepSeek-R1-671B",
    "openrouter/meta-llama/llama-4-maverick": "Llama-4-Maverick",
    "openrouter/meta-llama/llama-3.1-405b-instruct": "Llama-3.1-405B",
    "openrouter/deepseek/deepseek-r1": "DeepSeek-R1-671B",
}
"""Inspect model name -> published model name (exact names, no pattern matching)."""


def _rows(filename: str) -> list[list[str]]:
    text = (files(__package__) / "paper" / filename).read_text(encoding="utf-8")
    return list(csv.reader(io.StringIO(text)))


@cache
def published_models() -> dict[str, PublishedModel]:
    """Published name -> that model's published 128k numbers."""
    by_type = _rows(BY_QUESTION_TYPE)
    names = by_type[0][1:]
    categories: dict[str, dict[str, float]] = {name: {} for name in names}
    for row in by_type[1:]:
        key = PUBLISHED_CATEGORIES[row[0]]
        for name, value in zip(names, row[1:], strict=True):
            categories[name][key] = float(value)
    by_sessions = _rows(BY_SESSIONS)
    sessions_header = [int(cell) for cell in by_sessions[0][2:]]
    models: dict[str, PublishedModel] = {}
    for row in by_sessions[1:]:
        name, overall, values = row[0], float(row[1]), [float(cell) for cell in row[2:]]
        models[name] = PublishedModel(
            name, overall, categories.get(name, {}), dict(zip(sessions_header, values, strict=True))
        )
    return models


@cache
def published_methods() -> tuple[PublishedMethod, ...]:
    """The authors' memory and retrieval numbers (32k with Mem0, 128k with RAG)."""
    _, *rows = _rows(BY_METHOD)  # model, split, measure, method, accuracy, source
    return tuple(
        PublishedMethod(model, split, measure, method, float(accuracy), source)
        for model, split, measure, method, accuracy, source in rows
    )


def published_method(settings: Mapping[str, str]) -> str | None:
    """The published method a run is an instance of (any retriever is `rag`), or None:
    the published numbers are all of the multiple-choice prompt (`answer=choice`)."""
    history = HISTORIES.get(settings["history"])
    if settings["answer"] != "choice" or history is None:
        return None
    own = history.own(settings)
    if history.name in ("full", "none"):
        return history.label(own)
    if history.name == "rag":
        return "rag"
    if isinstance(own, MemorySettings) and own.memory == "mem0":
        return "memory (mem0)"
    return None
