"""The rows of a released question file, where a byte-exact copy was in hand, so that a
copy that differs can be told apart row by row: rows missing, rows added, a row
changed or cut short.

A table `released/<question file>.rows.tsv` beside this module holds, per released row
in file order, its question id, the characters of its cells and a digest of them
(`scripts/released_rows.py` writes it from the byte-exact file; a test holds it equal to
`shared/data/questions_32k.csv`). It holds no text of the data.
"""

from __future__ import annotations

import csv
import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_personamem.datasets.v1.records import COLUMNS, QuestionRecord

FOLDER = Path(__file__).parent / "released"
SHOWN = 3
"""Changed rows named one by one; the rest are counted."""


@dataclass(frozen=True)
class RowFacts:
    """What the table keeps of a row: enough to tell that it changed, and how much."""

    characters: int
    digest: str


def row_facts(record: QuestionRecord) -> RowFacts:
    """A row's characters and digest over its cells in the released column order (ints
    as read, so a cut number is a changed row)."""
    text = "\x1f".join(str(record.columns[name]) for name in COLUMNS)
    return RowFacts(len(text), hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest())


def table_path(questions_file: str) -> Path:
    return FOLDER / f"{questions_file}.rows.tsv"


@functools.lru_cache(maxsize=4)
def released_rows(questions_file: str) -> Mapping[str, RowFacts] | None:
    """Question id -> facts of each row of the released `questions_file`, in file
    order; None where no table is shipped (the release's rows are not known)."""
    path = table_path(questions_file)
    if not path.is_file():
        return None
    with path.open(encoding="utf-8", newline="") as file:
        return {
            row["question_id"]: RowFacts(int(row["characters"]), row["sha256"])
            for row in csv.DictReader(file, delimiter="\t")
        }


def write_table(path: Path, records: Sequence[QuestionRecord]) -> None:
    """Write the table of `records` (a released file's rows) to `path`."""
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, delimiter="\t", lineterminator="\n")
        writer.writerow(("question_id", "characters", "sha256"))
        for record in records:
            facts = row_facts(record)
            writer.writerow((record.question_id, facts.characters, facts.digest))


def row_differences(
    records: Sequence[QuestionRecord], released: Mapping[str, RowFacts]
) -> list[str]:
    """How the rows of `records` differ from the `released` rows, a phrase each: the
    released rows missing (at the end: a cut file), the rows changed (the last one
    shorter: cut short), the rows the release does not hold. Empty where they are the
    released rows, in the released order."""
    present = {record.question_id: record for record in records}
    if not present.keys() & released.keys():
        return ["none of its rows is a released row"]
    words = _missing([qid for qid in released if qid not in present], list(released))
    changed = [
        record
        for record in records
        if record.question_id in released and row_facts(record) != released[record.question_id]
    ]
    words += [_changed(record, released[record.question_id], records) for record in changed[:SHOWN]]
    if len(changed) > SHOWN:
        words.append(f"{_count(len(changed) - SHOWN, 'more row')} differ from the released ones")
    added = [record for record in records if record.question_id not in released]
    if added:
        words.append(
            f"{_count(len(added), 'row')} the release does not hold, the first question "
            f"{added[0].question_id} at line {added[0].line}"
        )
    if not words and [r.question_id for r in records] != list(released):
        words.append("the released rows in another order")
    return words


def _missing(missing: list[str], order: list[str]) -> list[str]:
    if not missing:
        return []
    if missing == order[len(order) - len(missing) :] and len(missing) < len(order):
        last = len(order) - len(missing)
        return [f"cut after question {order[last - 1]}, the released file's row {last}"]
    return [f"{_count(len(missing), 'released row')} missing, the first question {missing[0]}"]


def _changed(record: QuestionRecord, facts: RowFacts, records: Sequence[QuestionRecord]) -> str:
    shorter = facts.characters - row_facts(record).characters
    if shorter > 0 and record is records[-1]:
        how = (
            f"{_count(shorter, 'character')} shorter: cut short, its last cells are not the "
            "released ones"
        )
    elif shorter:
        how = f"{_count(abs(shorter), 'character')} {'shorter' if shorter > 0 else 'longer'}"
    else:
        how = "as long, other text"
    return (
        f"the row of question {record.question_id} at line {record.line} differs from the "
        f"released row ({how})"
    )


def _count(count: int, thing: str) -> str:
    return f"{count} {thing}" + ("" if count == 1 else "s")
