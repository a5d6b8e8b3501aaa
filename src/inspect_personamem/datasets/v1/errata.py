"""PersonaMem's known defects (`Release.errata`), each with where it was reported and the
runs it touches; docs/data.md lists them and the report notes those that touch a run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from inspect_personamem.data.release import Erratum


def _never(settings: Mapping[str, Any]) -> bool:
    return False


def _reads_history(settings: Mapping[str, Any]) -> bool:
    return settings.get("history") != "none"


def _shown_options(settings: Mapping[str, Any]) -> bool:
    return settings.get("answer") == "choice"


ERRATA: Final = (
    Erratum(
        "`context_length_in_letters` leaves out the question, so it is not the length of "
        "what the model is sent; the package reads it for the cost estimate's letters "
        "per token and, as the history's length, to locate a question's evidence from "
        "its token distance",
        "authors' issue #26",
        touches=_never,
    ),
    Erratum(
        "the 128k context file holds 110 contexts, of which the questions use 60: a run "
        "that reads the history reads the other 50 too, and asks nothing of them",
        "authors' issue #34",
        ("128k",),
        _reads_history,
    ),
    Erratum(
        "with no history at all a third party scored 49.2% on 128k (232 of 472 questions; "
        "chance is 25%): much of the split is answered from the question and options "
        "alone, so read a run beside its no-history run and the model-free floor",
        "authors' issue #41",
        ("128k",),
    ),
    Erratum(
        "about 44 rows of 128k have a negative `end_index_in_shared_context`: sliced as "
        "the official script slices, the history loses messages at its end instead of "
        "ending early (`negative_end_index` says what a run did with them)",
        "a third party's inspection (no issue)",
        ("128k",),
        _reads_history,
    ),
    Erratum(
        "three pairs of exact duplicates (same history, message, options and answer "
        "under two question ids) and 57 pairs asking the same message at the same point "
        "with other options: each counts as a question",
        "the released file (no issue)",
        ("32k",),
    ),
    Erratum(
        "the longest option is the correct one on 304 of 589 questions (0.516; chance "
        "0.25): a model shown the options can score above chance without the history "
        "(`--model personamem/floor -M rule=longest` measures it)",
        "the released file (no issue)",
        ("32k",),
        _shown_options,
    ),
)
"""PersonaMem's known defects (PERSONAMEM.md, "Files" and "Artifacts worth measuring")."""
