"""PersonaMem-v2 question records to Inspect samples: the model's messages as input,
only what metrics, graders and history sources read in metadata.

The input is the user message (query and the authors' sentence) and, for
`answer=choice`, the options message (`prompt.py`). No label column is in the input.
The metadata holds, for the history and answer axes, the question's `AskedAt`
(`data/asked.py`: the history file's link; its length, the whole file; the message
asked; the history's end, which every question of the persona shares, as the cache
prefix); `query`: the query without the appended sentence, for the preference judge;
and, for metrics and judges, the label columns they group or judge by. The large label
cells (`expanded_persona`, `short_persona`, `related_conversation_snippet`,
`raw_persona_file`) stay in the file, but for the snippet in a run whose history source
reads the evidence (`history=evidence`, which shows it, and the retrieval runs, which
check their items against it). History sources read only the `AskedAt`: no label
reaches the model, a retriever or a memory.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.options import LETTERS
from inspect_personamem.datasets.v2.evidence import SNIPPET, snippet_record
from inspect_personamem.datasets.v2.histories import PersonaContexts
from inspect_personamem.datasets.v2.prompt import asked, options_message, options_order
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.spec import Length
from inspect_personamem.errors import PersonaMemDataError

LABELS: Final = (
    "persona_id", "topic_query", "preference", "topic_preference", "conversation_scenario",
    "pref_type", "who", "updated", "prev_pref", "sensitive_info",
)  # fmt: skip
"""Label columns a sample keeps for metrics and the preference judge (never sent)."""

DISTANCE_BIN_EDGES: Final = (1_000, 4_000, 8_000, 16_000, 32_000, 64_000)
"""Upper edges, in tokens, of the bins of the distance from the related snippet to
the query: <1k, 1k-4k, 4k-8k, 8k-16k, 16k-32k, 32k-64k, 64k+."""


def _bin_labels() -> tuple[str, ...]:
    kilo = [edge // 1000 for edge in DISTANCE_BIN_EDGES]
    names = [f"{low}k-{high}k" for low, high in zip(kilo, kilo[1:], strict=False)]
    return ("<1k", *names, f"{kilo[-1]}k+")


DISTANCE_BIN_LABELS: Final = _bin_labels()
"""The bins' names, in order."""


def distance_bin_index(tokens: int) -> int:
    """The index, in `DISTANCE_BIN_LABELS`, of the bin of a snippet-to-query distance in
    tokens (0: <1k)."""
    return bisect.bisect_right(DISTANCE_BIN_EDGES, tokens)


def distance_bin(tokens: int) -> str:
    """The bin of a snippet-to-query distance in tokens."""
    return DISTANCE_BIN_LABELS[distance_bin_index(tokens)]


@dataclass(frozen=True)
class V2Question:
    """A question of the file at a history length: its record, its row index (of its
    sample id, whatever order it is sent in), and its history's length. The question
    order (`data.order.order_records`) reads it as it reads any question."""

    record: V2Record
    index: int
    length: Length
    end_index: int
    """The messages of its history: each question is asked after the whole of it, so a
    persona's questions share all of it, in whichever order they come."""

    @property
    def context_id(self) -> str:
        """The history it is asked after: its persona's file at its length."""
        return self.record.history_link(self.length)


def questions_at(
    records: Sequence[V2Record], length: Length, contexts: PersonaContexts
) -> list[V2Question]:
    """The file's questions at `length`, in file order. Every history is read here, once
    per persona, so a missing or malformed one stops the task before any sample."""
    questions = []
    for index, record in enumerate(records):
        link = record.history_link(length)
        history = contexts.messages(link)
        if not history:
            raise PersonaMemDataError(
                f"persona {record.persona_id}'s {length} history ({link}) holds no messages"
            )
        questions.append(V2Question(record, index, length, len(history)))
    return questions


def record_to_sample(
    question: V2Question, seed: int, options_role: str | None, evidence: bool = False
) -> Sample:
    """One sample; `options_role` None asks the user message alone (no options);
    `evidence` keeps the row's snippet in the metadata, for a history source that
    reads the evidence (never sent otherwise)."""
    record, length = question.record, question.length
    texts = (record.correct_answer, *record.incorrect_answers)
    order = options_order(seed, record.persona_id, record.query)
    shown = [texts[i] for i in order]
    message = asked(record.query)
    messages: list[ChatMessage] = [ChatMessageUser(content=message)]
    if options_role == "system":
        messages.append(ChatMessageSystem(content=options_message(shown)))
    elif options_role == "user":
        messages.append(ChatMessageUser(content=options_message(shown)))
    distance = record.distance_to_query(length)
    metadata: dict[str, Any] = {
        **{label: getattr(record, label) for label in LABELS},
        "distance_to_snippet": distance,
        "distance_bin": distance_bin(distance),
        **AskedAt(
            question.context_id, question.end_index, message, (question.end_index,)
        ).metadata(),
        "query": record.query,
        "correct_answer": record.correct_answer,
        "option_order": list(order),
        "shuffle_seed": seed,
    }
    sample_id = f"{record.persona_id}:{question.index}"
    if evidence:
        where = f"question {sample_id} (question file line {record.line}), field {SNIPPET!r}"
        metadata[SNIPPET] = snippet_record(record.related_conversation_snippet, where)
    return Sample(
        id=sample_id,
        input=messages,
        choices=shown,
        target=f"({LETTERS[order.index(0)]})",
        metadata=metadata,
    )


def build_v2_dataset(
    questions: Sequence[V2Question],
    name: str,
    seed: int,
    options_role: str | None,
    evidence: bool = False,
) -> MemoryDataset:
    """The task's dataset, in the order of `questions`."""
    return MemoryDataset(
        [record_to_sample(question, seed, options_role, evidence) for question in questions],
        name=name,
        shuffled=False,
    )
