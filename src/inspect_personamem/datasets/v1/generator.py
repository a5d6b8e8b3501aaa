"""PersonaMem-shaped files at any scale, for tests and benchmarks.

Writes a question CSV and a shared-context JSONL in the formats of the released
files: the same 15 columns in the same order, UTF-8 with CRLF line ends and no
newline after the last row, options serialised as JSON or as a Python literal
(alternating), a `system` persona message at the start of every session, speaker
prefixes, user-after-user pairs, unprefixed chit-chat between sessions and text
that is not Unicode-normalised. The text is random, so scores mean nothing; the
shapes (counts, lengths, ids, indices) are what the files are for.

Each question's evidence lies where the real data put it (`datasets/v1/evidence.py`):
a user message, in a slot of its own, in the session `distance_to_ref_in_blocks - 1`
before the question's own, says what the question asks about, followed by a marker
naming the question (`evidence_message`): a retriever can find it, a test's memory
plug-in recognise it, `history=evidence` show it. The token columns are counted as
the authors counted them, over the history's contents joined by spaces, with four
letters a token for the GPT-4o tokenizer (`text_tokens`): `distance_to_ref_in_tokens`
from the start of the evidence message to the question, the question's own tokens
included, as in `context_length_in_tokens`. Histories that fit a real question file
are `fitting.py`'s; the random text and the CSV writer are every version's
(`data/synthetic.py`).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.data.provenance import mark_generated
from inspect_personamem.data.synthetic import Text, write_table
from inspect_personamem.datasets.v1.options import COUNT, V1_LETTERS
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


LETTERS_PER_TOKEN = 4
"""The generated files' tokenizer: a token every four letters."""


def text_tokens(letters: int) -> int:
    """The tokens the generated files count for a text of `letters` letters."""
    return letters // LETTERS_PER_TOKEN


def session_length(size: int, sessions: int) -> int:
    """The messages of each session of a `size`-message history in about `sessions`
    sessions: at least two, so that every session holds a user message (its
    chit-chat), which a question's evidence message can take."""
    return max(2, size // max(1, sessions))


def context_messages(
    rng: random.Random, size: int, length: int, message_chars: int
) -> list[dict[str, str]]:
    """One history of `size` messages in sessions of `length`, shaped like the real ones."""
    text = Text(rng)
    persona = f"Current user persona: Name: {text.about(40)} Age: {rng.randint(18, 80)}"
    messages: list[dict[str, str]] = []
    while len(messages) < size:
        position = len(messages) % length
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


def history(
    number: int, size: int, length: int, *, message_chars: int, seed: int
) -> list[dict[str, str]]:
    """The history of a file's `number`th context, from a random stream of its own: the
    same whatever is drawn for the other contexts and for the questions."""
    return context_messages(random.Random(f"{seed}:{number}"), size, length, message_chars)


def evidence_marker(question_id: str) -> str:
    """The plain marker naming a question in its evidence message."""
    return f"[evidence of question {question_id}]"


def evidence_message(question: str, question_id: str) -> dict[str, str]:
    """The user message holding a question's evidence: the user saying, in the
    question's words, what it asks about, then the marker naming it."""
    said = question.removeprefix("User: ")
    return {"role": "user", "content": f"User: {said} {evidence_marker(question_id)}"}


class Slots:
    """Where one history can take evidence messages: per session (`session_starts`),
    the positions of its user messages that no question's evidence has taken. A
    question's evidence lies before its end index, in its own session or an earlier one."""

    def __init__(self, messages: Sequence[Mapping[str, str]]) -> None:
        roles = [message["role"] for message in messages]
        self.starts = session_starts(roles)
        ends = [*self.starts[1:], len(roles)]
        self.free = [
            [i for i in range(start, end) if roles[i] == "user"]
            for start, end in zip(self.starts, ends, strict=True)
        ]

    def own(self, end_index: int) -> int:
        """The session a question of `end_index` is asked in: the last to open before
        its end index, as `datasets/v1/evidence.py` counts."""
        return bisect.bisect_left(self.starts, end_index) - 1

    def open_for(self, end_index: int) -> list[int]:
        """The sessions that can still take the evidence message of a question of
        `end_index`: its own and earlier ones with a free slot before it."""
        return [
            session for session in range(self.own(end_index) + 1) if self.before(session, end_index)
        ]

    def before(self, session: int, end_index: int) -> list[int]:
        """The free slots of `session` before `end_index`."""
        return [position for position in self.free[session] if position < end_index]

    def earliest_end(self) -> int | None:
        """The least end index of a question whose evidence message a free slot can
        take; None where no slot is free."""
        free = [position for slots in self.free for position in slots]
        return min(free) + 1 if free else None

    def place(
        self,
        rng: random.Random,
        session: int,
        end_index: int,
        message: dict[str, str],
        messages: list[dict[str, str]],
    ) -> int:
        """Put `message` in a free slot of `session` before `end_index`, drawn, and
        return its position."""
        position = rng.choice(self.before(session, end_index))
        self.free[session].remove(position)
        messages[position] = message
        return position


def write_contexts(
    path: Path,
    sizes: Mapping[str, int],
    *,
    sessions: int = 5,
    message_chars: int = 200,
    seed: int = 0,
) -> None:
    """Write a context JSONL: one `{id: [messages]}` line per entry of `sizes`, with no
    question's evidence; marked as generated in its folder (`data.provenance`)."""

    def histories() -> Iterator[tuple[str, list[dict[str, str]]]]:
        for number, (context_id, size) in enumerate(sizes.items()):
            length = session_length(size, sessions)
            yield context_id, history(number, size, length, message_chars=message_chars, seed=seed)

    write_histories(path, histories())


def write_histories(
    path: Path, histories: Iterable[tuple[str, Sequence[Mapping[str, str]]]]
) -> None:
    """Write (context id, messages) pairs as a context JSONL, one line at a time (a 1M
    file is never held whole); marked as generated in its folder."""
    with path.open("w", encoding="utf-8", newline="\n") as file:
        for context_id, messages in histories:
            file.write(json.dumps({context_id: messages}, ensure_ascii=False) + "\n")
    mark_generated(path.parent, path, __name__)


def write_questions(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write a question CSV as the released files are: CRLF, no final newline; marked
    as generated in its folder."""
    write_table(path, tuple(COLUMNS), rows, line_end="\r\n", last_line_end=False)
    mark_generated(path.parent, path, __name__)


class _Questions:
    """Draws a split's question rows, context by context, from one random stream."""

    def __init__(self, split: Split, message_chars: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.text = Text(self.rng)
        self.labels = sorted(RAW_LABELS[split])
        self.message_chars = message_chars

    def over(
        self, context_id: str, messages: list[dict[str, str]], numbers: Sequence[int]
    ) -> list[dict[str, Any]]:
        """The rows of the questions `numbers` (their places in the file) asked over one
        history, each one's evidence message placed in `messages`; their token columns
        counted once all are placed (`count_tokens`)."""
        slots = Slots(messages)
        placed = [self.row(number, context_id, messages, slots) for number in numbers]
        return [count_tokens(row, position, messages) for row, position in placed]

    def row(
        self, number: int, context_id: str, messages: list[dict[str, str]], slots: Slots
    ) -> tuple[dict[str, Any], int]:
        """One question's row, its token columns not yet counted, and where its evidence
        message lies. Its end index falls in the second half of its history (real
        questions come late in theirs), later where no slot before it can take its
        evidence."""
        rng, text = self.rng, self.text
        end_index = self.end_index(context_id, number, len(messages), slots)
        # apostrophes in some options only: a Python literal then mixes its quotes
        bodies = [
            text.about(60) + (f" It's {letter}'s idea." if letter in "ac" else f" Option {letter}.")
            for letter in V1_LETTERS
        ]
        options = [f"({letter}) {body}" for letter, body in zip(V1_LETTERS, bodies, strict=True)]
        serialised = json.dumps(options, ensure_ascii=False) if number % 2 else repr(options)
        question = ("User: " if number % 9 == 0 else "") + text.about(80)
        question_id = _uuid(rng)
        session = rng.choice(slots.open_for(end_index))
        message = evidence_message(question, question_id)
        position = slots.place(rng, session, end_index, message, messages)
        row = {
            "persona_id": number % 20,
            "question_id": question_id,
            "question_type": self.labels[number % len(self.labels)],
            "topic": TOPICS[number % len(TOPICS)],
            "context_length_in_tokens": None,
            "context_length_in_letters": None,
            "distance_to_ref_in_blocks": slots.own(end_index) - session + 1,
            "distance_to_ref_in_tokens": None,
            "num_irrelevant_tokens": rng.choice((0, 0, 1200)),
            "distance_to_ref_proportion_in_context": None,
            "user_question_or_message": question,
            "correct_answer": f"({V1_LETTERS[rng.randrange(COUNT)]})",
            "all_options": serialised,
            "shared_context_id": context_id,
            "end_index_in_shared_context": end_index,
        }
        return row, position

    def end_index(self, context_id: str, number: int, size: int, slots: Slots) -> int:
        """A question's end index: in the second half of its history where a slot
        before it can take its evidence, else the least that has one, or later."""
        end_index = self.rng.randint(max(1, size // 2), size)
        if slots.open_for(end_index):
            return end_index
        earliest = slots.earliest_end()
        if earliest is None:
            raise ValueError(
                f"context {context_id}: no slot before question {number}'s end index can "
                "take its evidence message (every user message is taken); give the "
                "contexts more messages or ask fewer questions"
            )
        return self.rng.randint(earliest, size)


def count_tokens(
    row: dict[str, Any], position: int, messages: Sequence[Mapping[str, str]]
) -> dict[str, Any]:
    """`row` with its token columns counted as the authors counted them, over the
    contents of `messages` joined by spaces: the history before its end index, and from
    the start of its evidence message (at `position`) to the question, the question's
    own tokens added to both."""
    contents = [message["content"] for message in messages[: row["end_index_in_shared_context"]]]
    letters = len(" ".join(contents))
    before = text_tokens(len(" ".join(contents[:position])))
    question = text_tokens(len(row["user_question_or_message"]))
    tokens = text_tokens(letters) + question
    distance = tokens - before
    return {
        **row,
        "context_length_in_tokens": tokens,
        "context_length_in_letters": letters,
        "distance_to_ref_in_tokens": distance,
        "distance_to_ref_proportion_in_context": f"{100 * distance / tokens:.2f}%",
    }


def split_histories(
    split: Split,
    sizes: Mapping[str, int],
    questions: int,
    *,
    message_chars: int = 200,
    sessions: int = 5,
    seed: int = 0,
) -> Iterator[tuple[str, list[dict[str, str]], list[dict[str, Any]]]]:
    """Each history of a synthetic split in turn, with the rows of the questions asked
    over it (`questions` spread over the contexts, grouped by context as the real files
    are), every question's evidence message placed in it."""
    ids = list(sizes)
    numbers: dict[str, list[int]] = defaultdict(list)
    for number in range(questions):
        numbers[ids[number * len(ids) // questions]].append(number)
    asking = _Questions(split, message_chars, seed)
    for place, (context_id, size) in enumerate(sizes.items()):
        length = session_length(size, sessions)
        messages = history(place, size, length, message_chars=message_chars, seed=seed)
        yield context_id, messages, asking.over(context_id, messages, numbers[context_id])


def question_rows(
    split: Split,
    context_sizes: Mapping[str, int],
    questions: int,
    *,
    message_chars: int = 200,
    sessions: int = 5,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """The question rows of a synthetic split alone (`split_histories`; its histories
    are drawn, for the rows to fit them, and not kept)."""
    return [
        row
        for _, _, rows in split_histories(
            split,
            context_sizes,
            questions,
            message_chars=message_chars,
            sessions=sessions,
            seed=seed,
        )
        for row in rows
    ]


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
    rows: list[dict[str, Any]] = []

    def histories() -> Iterator[tuple[str, list[dict[str, str]]]]:
        for context_id, messages, asked in split_histories(
            split, sizes, questions, message_chars=message_chars, sessions=sessions, seed=seed
        ):
            rows.extend(asked)
            yield context_id, messages

    write_histories(contexts_path, histories())
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
