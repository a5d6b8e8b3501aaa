"""PersonaMem-v2-shaped files at any scale, for tests and benchmarks.

Writes a subset in the released layout: `benchmark/text/{subset}.csv` with the 27
columns in the released order (written as `datasets` and pandas write a CSV: see
`write_questions`), and per persona one history file of each length under
`data/chat_history_{32k,128k}/`, at the paths the rows link. The shapes are the
benchmark subset's (PERSONAMEM_V2.md): 200 personas, 6-42 questions each, 162-293
messages in a 32k history, a 128k history about 3.3 times as long (the 32k
conversation with unrelated turns between its exchanges). Every history opens with
the one system message carrying the persona card as indented JSON; the turns do not
strictly alternate (a "Please forget that I ..." user message gets no reply, and a
history may end on a user message). Each cell is of its column's kind: `user_query`
a Python dict literal, the lists and the persona JSON, booleans, `prev_pref` empty
unless the preference was updated, `pref_type` one of the seven known values in the
benchmark's proportions, `who` `self` or (one row in ten) `others`. The text is
random (`synthetic.Text`), so scores mean nothing; the shapes are what the files are
for.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from inspect_personamem.data.provenance import mark_generated
from inspect_personamem.data.synthetic import Text, write_table
from inspect_personamem.datasets.v2.records import COLUMNS
from inspect_personamem.datasets.v2.spec import PERSONAMEM_V2, Length, Subset

PREF_TYPES: Final = {
    "ask_to_forget": 1048,
    "neutral_preferences": 858,
    "anti_stereotypical_pref": 855,
    "therapy_background": 627,
    "health_and_medical_conditions": 568,
    "stereotypical_pref": 533,
    "sensitive_info": 511,
}
"""The seven `pref_type` values and their counts in the benchmark subset."""
TOPICS = ("Health", "Travel", "Food", "Music", "Finance", "Books", "Work", "Family")
SCENARIOS = ("personal_email", "chat", "creative_writing", "professional_writing", "social_media")
SYSTEM_PROMPT: Final = "You are an AI assistant helping a user with the following persona:\n\n"
"""The start of a history's system message."""
FORGET = "Please forget that I "
"""How a user message asking to forget begins (it gets no reply)."""


@dataclass(frozen=True)
class V2Shape:
    """Counts and sizes of a subset: what the benchmarks reproduce."""

    personas: int
    min_messages: int
    """Of a 32k history, its system message included; at least 3 (one exchange)."""
    max_messages: int
    min_questions: int
    """Per persona."""
    max_questions: int
    long_factor: float
    """A 128k history's length in messages, as a multiple of its 32k history's."""
    message_chars: int
    """Of an assistant message; a user message is a quarter as long."""


BENCHMARK_SHAPE: Final = V2Shape(200, 162, 293, 6, 42, 3.3, 860)
"""The benchmark subset's shape: 200 personas, 162-293 messages a 32k history, 6-42
questions a persona; assistant messages of 860 characters (user ones of 215) make a 32k
history of the mean size about 31.8k tokens at four characters a token; the 128k
history of persona 521 holds 3.3 times the tokens of its 32k one (104,178 and 31,842)."""


def generate_v2(
    folder: Path,
    *,
    subset: Subset = "benchmark",
    shape: V2Shape = BENCHMARK_SHAPE,
    seed: int = 0,
) -> Path:
    """Write a synthetic subset of `shape` into `folder` in the released layout; return
    its question file, marked as generated (`data.provenance`: every run reads it)."""
    rng = random.Random(seed)
    ids = rng.sample(range(max(1000, 2 * shape.personas)), shape.personas)
    rows: list[dict[str, Any]] = []
    for persona_id in ids:
        persona = _Persona(random.Random(f"{seed}:{persona_id}"), persona_id, shape)
        persona.write_histories(folder)
        rows.extend(persona.rows())
    path = folder / PERSONAMEM_V2.questions_file(subset)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_questions(path, rows)
    mark_generated(folder, path, __name__)
    return path


def write_questions(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write rows whose values have the types `datasets` gives (int, bool, None, text)
    as `datasets` and pandas write a CSV: the released column order, `\\n` after every
    line, minimal quoting, `True`/`False`, None as an empty cell."""
    write_table(path, COLUMNS, rows, line_end="\n", last_line_end=True)


def system_message(card: str) -> str:
    """A history's system message, as in the real files: `SYSTEM_PROMPT`, the persona
    card (the row's `expanded_persona`, indented JSON), two newlines."""
    return f"{SYSTEM_PROMPT}{card}\n\n"


def _tokens(messages: Iterable[Mapping[str, str]]) -> int:
    """Tokens at four characters a token."""
    return sum(len(message["content"]) for message in messages) // 4


class _Persona:
    """One synthetic persona: its card, its two histories and its question rows."""

    def __init__(self, rng: random.Random, persona_id: int, shape: V2Shape) -> None:
        self.rng, self.id, self.shape = rng, persona_id, shape
        self.text = Text(rng)
        self.card = self._card()
        day, hour, minute, second = (
            rng.randint(*span) for span in ((10, 28), (8, 20), (0, 59), (0, 59))
        )
        written = datetime(2025, 9, day, hour, minute, second)
        # the 128k file is written a few minutes after the 32k one
        self.stamps = {"32k": written, "128k": written + timedelta(minutes=4, seconds=22)}
        self.raw_file = f"data/raw_data/raw_data_{written - timedelta(days=25):%y%m%d_%H%M%S}"
        self.raw_file += f"_persona{persona_id}.json"
        system = {"role": "system", "content": system_message(self.expanded())}
        size = rng.randint(shape.min_messages, shape.max_messages)
        self.turns = self._turns(size - 1, forget=True)
        self.short = [system, *self.turns]
        filler = self._turns(round(size * shape.long_factor) - size, forget=False)
        self.long = [system, *self._interleave(filler)]

    def link(self, length: Length) -> str:
        stamp = f"{self.stamps[length]:%y%m%d_%H%M%S}"
        return f"data/chat_history_{length}/chat_history_{stamp}_persona{self.id}.json"

    def expanded(self) -> str:
        return json.dumps(self.card, indent=2, ensure_ascii=False)

    def write_histories(self, folder: Path) -> None:
        relevant = _tokens(self.short)
        self._write(folder, "32k", self.short, {})
        irrelevant = _tokens(self.long) - relevant
        counts = {"num_relevant_tokens": relevant, "num_irrelevant_tokens": irrelevant}
        self._write(folder, "128k", self.long, counts)

    def _write(
        self, folder: Path, length: Length, messages: list[dict[str, str]], extra: dict[str, int]
    ) -> None:
        path = folder / self.link(length)
        path.parent.mkdir(parents=True, exist_ok=True)
        metadata = {
            "total_messages": len(messages),
            "final_token_count": _tokens(messages),
            "persona_id": self.id,
            "input_filename": self.raw_file,
            **extra,
        }
        history = {"metadata": metadata, "chat_history": messages}
        path.write_text(json.dumps(history, indent=2, ensure_ascii=False), encoding="utf-8")

    def rows(self) -> list[dict[str, Any]]:
        count = self.rng.randint(self.shape.min_questions, self.shape.max_questions)
        return [self._row() for _ in range(count)]

    def _card(self) -> dict[str, Any]:
        """A persona card about as long as the real ones (about 4.5 kB as indented JSON)."""
        text, rng = self.text, self.rng

        def words(chars: int) -> str:
            return text.about(chars).rstrip(".")

        return {
            "short_persona": {"persona": text.about(120)},
            "name": words(20),
            "age": rng.randint(18, 80),
            "gender": rng.choice(("Male", "Female", "Non-binary")),
            "location": {"city": words(10), "region": words(20), "type": text.about(60)},
            "personality": {
                "traits": [words(15) for _ in range(8)],
                "conflict_style": text.about(120),
            },
            "education": {"degree": "Master’s in " + words(20), "institution": words(20)},
            "occupation": {"title": words(30), "employer": words(40), "years_in_role": 11},
            "family_background": {"marital_status": "Married", "children": text.about(200)},
            "hobbies_interests": [text.about(40) for _ in range(6)],
            "technology_use": {"devices": [words(10), words(10)], "comfort": text.about(80)},
            "values_beliefs": {"politics": text.about(250), "personal_life": text.about(150)},
            "speaking_style_with_chatbot": {
                aspect: text.about(chars)
                for aspect, chars in (
                    ("tone", 150),
                    ("formality", 150),
                    ("pacing", 150),
                    ("vocabulary", 300),
                    ("interaction_pattern", 200),
                )
            },  # fmt: skip
        }

    def _message(self, role: str) -> dict[str, str]:
        chars = self.shape.message_chars // (4 if role == "user" else 1)
        return {"role": role, "content": self.text.about(chars)}

    def _turns(self, count: int, *, forget: bool) -> list[dict[str, str]]:
        """`count` messages: exchanges, and with `forget` now and then (never first) a
        user message asking to forget, without reply; cut at `count`, so that the last
        may be a user message."""
        turns: list[dict[str, str]] = []
        while len(turns) < count:
            if forget and turns and self.rng.random() < 0.04:
                content = FORGET + self.text.about(60)
                turns.append({"role": "user", "content": content})
            else:
                turns += [self._message("user"), self._message("assistant")]
        return turns[:count]

    def _interleave(self, filler: list[dict[str, str]]) -> list[dict[str, str]]:
        """The 32k turns with the filler's exchanges between theirs, in a few blocks."""
        blocks = min(len(self.turns), 8)
        cuts = sorted(self.rng.sample(range(len(self.turns) + 1), blocks))
        size = -(-len(filler) // blocks) if blocks else len(filler)
        merged: list[dict[str, str]] = []
        for start, end in zip([0, *cuts], [*cuts, len(self.turns)], strict=True):
            merged += self.turns[start:end]
            merged += filler[:size]
            del filler[:size]
        return merged

    def _snippet(self, pref_type: str) -> list[dict[str, str]]:
        """Messages of the 32k history the question is about: the request to forget
        for `ask_to_forget` where there is one, else one or two exchanges."""
        if pref_type == "ask_to_forget":
            forgets = [m for m in self.turns if m["content"].startswith(FORGET)]
            if forgets:
                return [self.rng.choice(forgets)]
        starts = [
            i
            for i in range(len(self.turns) - 1)
            if self.turns[i]["role"] == "user" and self.turns[i + 1]["role"] == "assistant"
        ]
        start = self.rng.choice(starts)
        return self.turns[start : start + self.rng.choice((2, 4))]

    def _distance(self, messages: list[dict[str, str]], snippet: list[dict[str, str]]) -> int:
        """Tokens after the snippet's last message to the end of `messages`."""
        last = next(i for i, m in enumerate(messages) if m is snippet[-1])
        return _tokens(messages[last + 1 :])

    def _row(self) -> dict[str, Any]:
        rng, text = self.rng, self.text
        pref_type = rng.choices(list(PREF_TYPES), weights=list(PREF_TYPES.values()))[0]
        snippet = self._snippet(pref_type)
        sensitive = pref_type == "sensitive_info"
        updated = rng.random() < 0.15
        question = rng.choice(("What's a good way to ", "How can I ", "Any ideas for "))
        short = self.card["short_persona"]
        short_tokens, long_tokens = _tokens(self.short), _tokens(self.long)
        return {
            "persona_id": self.id,
            "chat_history_32k_link": self.link("32k"),
            "chat_history_128k_link": self.link("128k"),
            "raw_persona_file": self.raw_file,
            "short_persona": repr(short) if self.id % 2 else short["persona"],
            "expanded_persona": self.expanded(),
            "user_query": repr({"role": "user", "content": question + text.about(80)}),
            "correct_answer": text.about(250),
            "incorrect_answers": json.dumps(
                [text.about(250) for _ in range(3)], ensure_ascii=False
            ),
            "topic_query": rng.choice(TOPICS),
            "preference": text.about(40),
            "topic_preference": rng.choice(TOPICS),
            "conversation_scenario": rng.choice(SCENARIOS),
            "pref_type": pref_type,
            "related_conversation_snippet": json.dumps(snippet, ensure_ascii=False),
            "who": "others" if rng.random() < 0.1 else "self",
            "updated": updated,
            "prev_pref": text.about(40) if updated else None,
            "sensitive_info": sensitive,
            "total_tokens_in_chat_history_32k": short_tokens,
            "total_tokens_in_chat_history_128k": long_tokens,
            "distance_from_related_snippet_to_query_32k": (
                0 if sensitive else self._distance(self.short, snippet)
            ),
            "distance_from_related_snippet_to_query_128k": (
                0 if sensitive else self._distance(self.long, snippet)
            ),
            "num_persona_relevant_tokens_32k": short_tokens,
            "num_persona_irrelevant_tokens_32k": 0,
            "num_persona_relevant_tokens_128k": short_tokens,
            "num_persona_irrelevant_tokens_128k": long_tokens - short_tokens,
        }
