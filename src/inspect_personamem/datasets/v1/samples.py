"""Question records to Inspect samples, with the history left out of the sample.

`Sample.input` is only the final user message (question, instruction, options);
the sample's metadata carries every column of the question row plus the paper
category, the options as shown, the coarse distance bin and what the history and
answer axes read (`data.asked.AskedAt`). The solver joins the
history from the shared context store at solve time, so no sample holds a copy.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.options import LETTERS, shuffled_order
from inspect_personamem.data.order import prefix_ends
from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.prompt import final_user_message
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.types import NegativeEndIndexPolicy

logger = logging.getLogger(__name__)


DISTANCE_BIN_EDGES = (1, 2, 4, 7, 11, 21, 41)
"""Lower edges of the coarse sessions-elapsed bins: 1, 2-3, 4-6, 7-10, 11-20, 21-40, 41+."""


def distance_bin(sessions: int) -> str:
    """Coarse bin label for a `distance_to_ref_in_blocks` value."""
    if sessions < DISTANCE_BIN_EDGES[0]:
        return f"<{DISTANCE_BIN_EDGES[0]}"
    i = bisect.bisect_right(DISTANCE_BIN_EDGES, sessions) - 1
    low = DISTANCE_BIN_EDGES[i]
    if i + 1 == len(DISTANCE_BIN_EDGES):
        return f"{low}+"
    high = DISTANCE_BIN_EDGES[i + 1] - 1
    return str(low) if low == high else f"{low}-{high}"


def check_against_contexts(
    records: Sequence[QuestionRecord],
    store: ContextStore | None,
    questions_file: Path,
    negative_end_index: NegativeEndIndexPolicy,
) -> list[QuestionRecord]:
    """Validate context ids and end indices against `store` (None: a run that reads no
    history, whose rows are checked without it); apply the negative-end-index policy.

    `official` keeps such rows and slices as Python does (dropping messages from the
    end, as the authors' script does); `skip` leaves them out; `error` raises. Both
    lenient policies warn with the count and the first ids. The same rows are kept
    with and without the store.
    """
    kept: list[QuestionRecord] = []
    negative: list[str] = []
    for record in records:
        if store is not None:
            _check_in_store(record, store, questions_file)
        if record.end_index == 0:
            raise _row_error(
                questions_file,
                record,
                "end_index_in_shared_context",
                "end index 0 leaves the question no history at all (the no-history "
                "baseline under another name; for that baseline use history=none)",
            )
        if record.end_index < 0:
            if negative_end_index == "error":
                raise _row_error(
                    questions_file,
                    record,
                    "end_index_in_shared_context",
                    f"negative end index {record.end_index} (set negative_end_index="
                    "'official' to slice as the authors do, or 'skip')",
                )
            negative.append(record.question_id)
            if negative_end_index == "skip":
                continue
        kept.append(record)
    if negative:
        action = "skipped" if negative_end_index == "skip" else "kept, sliced as Python does"
        logger.warning(
            f"{questions_file}: {len(negative)} question(s) have a negative "
            f"end_index_in_shared_context ({action}; negative_end_index="
            f"'{negative_end_index}'): {', '.join(negative[:5])}"
            + (" ..." if len(negative) > 5 else "")
        )
    return kept


def _check_in_store(record: QuestionRecord, store: ContextStore, questions_file: Path) -> None:
    """Raise where the record's context is not in `store`, cannot be read, or is
    shorter than its end index."""
    if record.context_id not in store:
        found = store.line_with_key(record.context_id)
        why = (
            f"not in {store.path}"
            if found is None
            else f"{store.path}, line {found[0]} holds it, but not as its first key "
            f"(that is {found[1]!r}): each line must be a single-key object "
            "{context_id: [messages]}"
        )
        raise _row_error(
            questions_file,
            record,
            "shared_context_id",
            f"unknown context id {record.context_id!r} ({why})",
        )
    try:
        size = len(store.messages(record.context_id))
    except PersonaMemDataError as ex:
        raise _row_error(
            questions_file, record, "shared_context_id", f"its shared context cannot be read: {ex}"
        ) from None
    if record.end_index > size:
        raise _row_error(
            questions_file,
            record,
            "end_index_in_shared_context",
            f"end index {record.end_index} is beyond the context's {size} messages",
        )


def _row_error(
    questions_file: Path, record: QuestionRecord, field: str, message: str
) -> PersonaMemDataError:
    """An error in `field` of `record`'s row of `questions_file`."""
    return PersonaMemDataError.at(
        questions_file, message, line=record.line, question_id=record.question_id, field=field
    )


def record_to_sample(
    record: QuestionRecord, shuffle: int | None, cache_prefix_ends: Sequence[int] = ()
) -> Sample:
    """One sample: the final user message as input, every column in metadata."""
    if shuffle is None:
        # The official prompt sends the CSV cell exactly as it stands.
        order, options = tuple(range(len(record.options.texts))), record.options
        rendered = str(record.columns["all_options"])
    else:
        order = shuffled_order(shuffle, record.question_id, len(record.options.texts))
        options = record.options.permuted(order)
        rendered = options.render()
    target = LETTERS[order.index(LETTERS.index(record.correct_letter))]
    metadata: dict[str, Any] = {
        **record.columns,
        "category": record.category,
        "distance_bin": distance_bin(int(record.columns["distance_to_ref_in_blocks"])),
        "option_order": list(order),
        "shuffle_seed": shuffle,
        **AskedAt(
            record.context_id, record.end_index, record.question, tuple(cache_prefix_ends)
        ).metadata(),
    }
    return Sample(
        id=record.question_id,
        input=final_user_message(record.question, rendered),
        choices=list(options.bodies()),
        target=f"({target})",
        metadata=metadata,
    )


def build_dataset(
    records: Sequence[QuestionRecord], name: str, shuffle: int | None
) -> MemoryDataset:
    """The task's dataset, in the order of `records`."""
    ends = prefix_ends(records)
    return MemoryDataset(
        [record_to_sample(record, shuffle, ends[record.question_id]) for record in records],
        name=name,
        shuffled=False,
    )
