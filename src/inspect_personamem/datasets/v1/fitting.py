"""Histories that fit real PersonaMem question rows (`write_fitting_contexts`): what
`inspect-personamem try --questions` asks a real question file over, each question's
evidence placed where its row says (`datasets/v1/evidence.py`)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_personamem.datasets.v1.generator import (
    Slots,
    contexts_for_questions,
    evidence_message,
    history,
    session_length,
    write_histories,
)


def write_fitting_contexts(
    path: Path,
    questions: Sequence[Mapping[str, Any]],
    *,
    sessions: int = 5,
    message_chars: int = 200,
    seed: int = 0,
) -> None:
    """Write histories that fit real question rows (`contexts_for_questions`), each
    question's evidence where its row says: a context's sessions are short enough that
    `distance_to_ref_in_blocks - 1` sessions open before every question's own, and the
    session that many before holds its evidence message, before its end index. A
    question at distance 1 needs a free user message in its own session before its end
    index, which a session opening just before it lacks: of the `FITTING_TRIES` longest
    session lengths that fit, the first that places every question's message is taken,
    else the one that places most. Where sessions of two messages cannot fit a
    question's distance, its evidence is not located; where its session has no user
    message left before the end index (or the distance is below 1), it holds no message
    of the question's. The rows' token counts are of the real histories, not these: the
    evidence is located by its sessions."""
    sizes = contexts_for_questions(questions)
    asked: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in questions:
        asked[str(row["shared_context_id"])].append(row)

    def histories() -> Iterator[tuple[str, list[dict[str, str]]]]:
        for number, (context_id, size) in enumerate(sizes.items()):
            rows = sorted(asked[context_id], key=lambda row: int(row["distance_to_ref_in_blocks"]))
            longest = max(2, min(session_length(size, sessions), *map(_fitting_length, rows)))
            best: tuple[int, list[dict[str, str]]] | None = None
            for length in range(longest, max(1, longest - FITTING_TRIES), -1):
                messages = history(number, size, length, message_chars=message_chars, seed=seed)
                placed = _place_fitting(messages, rows, random.Random(f"{seed}:{number}"))
                if best is None or placed > best[0]:
                    best = (placed, messages)
                if placed == len(rows):
                    break
            assert best is not None  # at least one length is tried
            yield context_id, best[1]

    write_histories(path, histories())


FITTING_TRIES = 8
"""How many session lengths `write_fitting_contexts` tries for a history, longest first."""


def _place_fitting(
    messages: list[dict[str, str]], rows: Sequence[Mapping[str, Any]], rng: random.Random
) -> int:
    """Place in `messages` the evidence message of each of `rows` its distance allows,
    `distance_to_ref_in_blocks - 1` sessions before its own; return how many."""
    slots = Slots(messages)
    placed = 0
    for row in rows:
        end_index = int(row["end_index_in_shared_context"])
        session = slots.own(end_index) + 1 - int(row["distance_to_ref_in_blocks"])
        if session in slots.open_for(end_index):
            message = evidence_message(
                str(row["user_question_or_message"]), str(row["question_id"])
            )
            slots.place(rng, session, end_index, message, messages)
            placed += 1
    return placed


def _fitting_length(row: Mapping[str, Any]) -> int:
    """The longest sessions that open as many sessions before a question's own as its
    distance asks: `distance - 1` whole ones before its end index."""
    before = max(1, int(row["distance_to_ref_in_blocks"]) - 1)
    return (int(row["end_index_in_shared_context"]) - 1) // before
