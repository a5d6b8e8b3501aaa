"""PersonaMem-shaped files at any scale, for tests and benchmarks.

Writes a question CSV and a shared-context JSONL in the formats of the released
files: the same 15 columns in the same order, UTF-8 with CRLF line ends and no
newline after the last row, options serialised as JSON or as a Python literal
(alternating), a `system` persona message at the start of every session, speaker
prefixes, user-after-user pairs, unprefixed chit-chat between sessions and text
that is not Unicode-normalised. The text is random, so scores mean nothing; the
shapes (counts, lengths, ids, indices) are what the files are for.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_personamem.data.options import LETTERS
from inspect_personamem.data.provenance import mark_generated
from inspect_personamem.datasets.v1.question_types import RAW_LABELS
from inspect_personamem.datasets.v1.records import COLUMNS
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.datasets.v1.splits import Split

TOPICS = (
    "therapy", "travelPlanning", "foodRecommendation", "musicRecommendation",
    "datingConsultation", "financialConsultation", "legalConsultation", "medicalConsultation",
    "bookRecommendation", "movieRecommendation", "homeDecoration", "familyRelations",
    "studyConsultation", "sportsRecommendation", "onlineShopping",
)  # fmt: skip
_WORDS = (
    "coffee", "garden", "weekend", "piano", "budget", "hiking", "novel", "recipe", "café",
    "sister", "project", "morning", "travel", "yoga", "painting", "market", "career", "jazz",
    "museum", "podcast", "friend", "river", "school", "kitchen", "city", "habit", "dream",
    "it's", "really", "prefer", "enjoy", "lately", "because", "always", "never", "maybe",
)  # fmt: skip
_DECOMPOSED = "cafe\u0301"  # an accent written as two code points, as in the real files


@dataclass(frozen=True)
class SplitShape:
    """Counts and sizes of a split: what the benchmarks reproduce."""

    contexts: int
    min_messages: int
    max_messages: int
    questions: int
    message_chars: int
    sessions: int


SHAPES: dict[Split, SplitShape] = {
    "32k": SplitShape(37, 116, 238, 589, 800, 5),
    "128k": SplitShape(60, 590, 846, 2727, 700, 20),
    "1M": SplitShape(31, 3304, 3803, 2674, 1150, 60),
}
"""The released splits' shapes (PERSONAMEM.md): contexts, messages per context,
questions, and a message length that makes a 1M context about 4 MB of text."""


class Text:
    """Cheap random text: every sentence is drawn afresh from a Zipf-like law over a few
    thousand made-up words.

    Nothing repeats at long range, so the text compresses about as well as real prose
    does with zlib and zstd alike (about 0.3 of its size): a pool of ready-made
    sentences would fit in zstd's window and make logs look smaller than real ones.
    """

    ACCENT_EVERY = 2000
    """About one sentence in this many carries a decomposed accent, as real text does."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vocabulary = list(_WORDS) + [
            "".join(rng.choices("abcdefghijklmnoprstuvwy", k=rng.randint(2, 9)))
            for _ in range(4000)
        ]
        self.cum_weights = list(
            itertools.accumulate(1 / (rank + 1) for rank in range(len(self.vocabulary)))
        )

    def sentence(self) -> str:
        if self.rng.randrange(self.ACCENT_EVERY) == 0:
            return f"I had a {_DECOMPOSED} au lait, which I'd recommend."
        words = self.rng.choices(
            self.vocabulary, cum_weights=self.cum_weights, k=self.rng.randint(6, 16)
        )
        return " ".join(words).capitalize() + "."

    def about(self, chars: int) -> str:
        parts: list[str] = []
        size = 0
        while size < chars:
            sentence = self.sentence()
            parts.append(sentence)
            size += len(sentence) + 1
        return " ".join(parts)


def context_messages(
    rng: random.Random, size: int, sessions: int, message_chars: int
) -> list[dict[str, str]]:
    """One history of `size` messages in `sessions` sessions, shaped like the real ones."""
    text = Text(rng)
    persona = f"Current user persona: Name: {text.about(40)} Age: {rng.randint(18, 80)}"
    messages: list[dict[str, str]] = []
    session_length = max(1, size // max(1, sessions))
    while len(messages) < size:
        position = len(messages) % session_length
        if position == 0:
            messages.append({"role": "system", "content": persona})
        elif position == 1 and messages:
            # unprefixed general-knowledge chit-chat between sessions
            messages.append({"role": "user", "content": text.about(message_chars // 4) + "?"})
        elif rng.random() < 0.06 and messages[-1]["role"] == "user":
            body = text.about(message_chars)
            messages.append({"role": "user", "content": f"[Original_Sentence]: {body}"})
        else:
            role = "assistant" if messages[-1]["role"] == "user" else "user"
            prefix = "Assistant: " if role == "assistant" else "User: "
            messages.append({"role": role, "content": prefix + text.about(message_chars)})
    return messages[:size]


def write_contexts(
    path: Path,
    sizes: Mapping[str, int],
    *,
    sessions: int = 5,
    message_chars: int = 200,
    seed: int = 0,
) -> None:
    """Write a context JSONL: one `{id: [messages]}` line per entry of `sizes`; marked
    as generated in its folder (`data.provenance`)."""
    with path.open("w", encoding="utf-8", newline="\n") as file:
        for number, (context_id, size) in enumerate(sizes.items()):
            rng = random.Random(f"{seed}:{number}")
            messages = context_messages(rng, size, sessions, message_chars)
            file.write(json.dumps({context_id: messages}, ensure_ascii=False) + "\n")
    mark_generated(path.parent, path, __name__)


def write_questions(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write a question CSV as the released files are: CRLF, no final newline; marked
    as generated in its folder."""
    write_table(path, tuple(COLUMNS), rows, line_end="\r\n", last_line_end=False)
    mark_generated(path.parent, path, __name__)


def write_table(
    path: Path,
    columns: Sequence[str],
    rows: Iterable[Mapping[str, Any]],
    *,
    line_end: str,
    last_line_end: bool,
) -> None:
    """Write a UTF-8 CSV file of `columns` as Python's csv writer (and pandas', which is
    it) writes one: a header, quotes only around a cell holding a comma, a quote or a
    line break, a quote inside doubled, None as an empty cell, any other value as
    `str()` (`True`, `42`); lines end with `line_end`, the last one only where
    `last_line_end`."""
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, lineterminator=line_end)
        writer.writeheader()
        writer.writerows(rows)
    if not last_line_end:
        with path.open("rb+") as file:
            file.seek(-len(line_end.encode()), 2)
            file.truncate()


def question_rows(
    split: Split,
    context_sizes: Mapping[str, int],
    questions: int,
    *,
    message_chars: int = 200,
    sessions: int = 5,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """`questions` rows spread over the contexts, grouped by context as the real files are.

    End indices fall in the second half of their context (real questions come late in
    their history), token counts assume four letters a token, and the distance to the
    reference is 1 to `sessions` sessions.
    """
    rng = random.Random(seed)
    text = Text(rng)
    labels = sorted(RAW_LABELS[split])
    context_ids = list(context_sizes)
    rows: list[dict[str, Any]] = []
    for number in range(questions):
        context_id = context_ids[number * len(context_ids) // questions]
        size = context_sizes[context_id]
        end_index = rng.randint(max(1, size // 2), size)
        # apostrophes in some options only: a Python literal then mixes its quotes
        bodies = [
            text.about(60) + (f" It's {letter}'s idea." if letter in "ac" else f" Option {letter}.")
            for letter in LETTERS
        ]
        options = [f"({letter}) {body}" for letter, body in zip(LETTERS, bodies, strict=True)]
        serialised = json.dumps(options, ensure_ascii=False) if number % 2 else repr(options)
        letters = end_index * message_chars
        tokens = letters // 4
        distance = rng.randint(1, sessions)
        rows.append(
            {
                "persona_id": number % 20,
                "question_id": _uuid(rng),
                "question_type": labels[number % len(labels)],
                "topic": TOPICS[number % len(TOPICS)],
                "context_length_in_tokens": tokens,
                "context_length_in_letters": letters,
                "distance_to_ref_in_blocks": distance,
                "distance_to_ref_in_tokens": tokens * distance // 10,
                "num_irrelevant_tokens": rng.choice((0, 0, 1200)),
                "distance_to_ref_proportion_in_context": f"{rng.uniform(1, 99):.2f}%",
                "user_question_or_message": ("User: " if number % 9 == 0 else "") + text.about(80),
                "correct_answer": f"({LETTERS[rng.randrange(4)]})",
                "all_options": serialised,
                "shared_context_id": context_id,
                "end_index_in_shared_context": end_index,
            }
        )
    return rows


def context_sizes(
    contexts: int, min_messages: int, max_messages: int, *, seed: int = 0
) -> dict[str, int]:
    """Context id (a 64-hex digest, like the real ones) -> number of messages."""
    rng = random.Random(seed)
    return {
        hashlib.sha256(f"{seed}:{i}".encode()).hexdigest(): rng.randint(min_messages, max_messages)
        for i in range(contexts)
    }


def generate_split(
    folder: Path,
    split: Split,
    *,
    contexts: int,
    min_messages: int,
    max_messages: int,
    questions: int,
    message_chars: int = 200,
    sessions: int = 5,
    seed: int = 0,
) -> tuple[Path, Path]:
    """Write both files of a synthetic split into `folder`; return (questions, contexts)."""
    folder.mkdir(parents=True, exist_ok=True)
    sizes = context_sizes(contexts, min_messages, max_messages, seed=seed)
    questions_path = folder / PERSONAMEM.questions_file(split)
    contexts_path = folder / PERSONAMEM.contexts_file(split)
    write_contexts(contexts_path, sizes, sessions=sessions, message_chars=message_chars, seed=seed)
    rows = question_rows(
        split, sizes, questions, message_chars=message_chars, sessions=sessions, seed=seed
    )
    write_questions(questions_path, rows)
    return questions_path, contexts_path


def generate_shape(
    folder: Path, split: Split, *, shape: SplitShape | None = None, seed: int = 0
) -> tuple[Path, Path]:
    """Write a synthetic split of `shape`; by default the real split's (see SHAPES)."""
    shape = shape or SHAPES[split]
    return generate_split(
        folder,
        split,
        contexts=shape.contexts,
        min_messages=shape.min_messages,
        max_messages=shape.max_messages,
        questions=shape.questions,
        message_chars=shape.message_chars,
        sessions=shape.sessions,
        seed=seed,
    )


def contexts_for_questions(
    questions: Sequence[Mapping[str, Any]], *, extra: int = 5
) -> dict[str, int]:
    """Context sizes that fit real question rows: each context a little longer than
    the largest end index any question asks of it."""
    sizes: dict[str, int] = {}
    for row in questions:
        context_id = str(row["shared_context_id"])
        end_index = int(row["end_index_in_shared_context"])
        sizes[context_id] = max(sizes.get(context_id, 0), end_index + extra)
    return sizes


def _uuid(rng: random.Random) -> str:
    digits = f"{rng.getrandbits(128):032x}"
    return f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-a{digits[17:20]}-{digits[20:]}"
