"""What a PersonaMem question file, and its context file where one is given, say about
the v1 evidence rule (docs/memory-and-retrieval.md#where-the-evidence-lies).

    python scripts/evidence_rule.py ../shared/data/questions_32k.csv [contexts.jsonl]

From the question file alone: whether its token fields hold together as the rule reads
them (`distance_to_ref_proportion_in_context` is the token distance over
`context_length_in_tokens`; the letters per token of each row; at one point of one
history every question has the same `context_length_in_letters`, the question left
out, and more letters at a later point, while `context_length_in_tokens` differs as
the questions' lengths do, their tokens counted in). Given the context file: per rule, how many
questions it locates (`tokens` where the row's letters are its history's, else
`sessions`), and, per `distance_to_ref_in_blocks` d, how many sessions before the
question's own the message at the token distance lies, against d - 1.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from inspect_personamem.data.contexts import session_starts
from inspect_personamem.datasets.v1.contexts import ContextStore
from inspect_personamem.datasets.v1.evidence import locate_evidence, token_distance
from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.spec import PERSONAMEM


def token_fields(records: list[QuestionRecord]) -> None:
    """Print how the rows' token fields hold together."""
    fields = [token_distance(record.columns) for record in records]
    read = [(record, field) for record, field in zip(records, fields, strict=True) if field]
    print(f"questions: {len(records)}, with all three token fields: {len(read)}")
    shares = sum(
        f"{100 * field.distance / field.tokens:.2f}%"
        == record.columns["distance_to_ref_proportion_in_context"]
        for record, field in read
    )
    print(f"proportion = distance_to_ref_in_tokens / context_length_in_tokens: {shares}")
    ratios = [field.letters / field.tokens for _, field in read]
    print(
        f"letters per token: min {min(ratios):.2f}, median {statistics.median(ratios):.2f}, "
        f"max {max(ratios):.2f}"
    )
    points: dict[tuple[str, int], set[int]] = defaultdict(set)
    asked: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    for record, field in read:
        points[record.context_id, record.end_index].add(field.letters)
        asked[record.context_id, record.end_index].append((field.tokens, len(record.question)))
    same = sum(len(letters) == 1 for letters in points.values())
    print(f"points of one history with one letter count: {same} of {len(points)}")
    steps = [
        (a[0] - b[0], a[1] - b[1])
        for both in asked.values()
        for a, b in zip(both, both[1:], strict=False)
    ]
    if len(steps) > 1:
        tokens, letters = zip(*steps, strict=True)
        print(
            "at one point of one history, context_length_in_tokens against the question's "
            f"letters: correlation {statistics.correlation(tokens, letters):.2f} over "
            f"{len(steps)} pairs"
        )
    growing = pairs = 0
    for context in {context for context, _ in points}:
        ends = sorted(end for c, end in points if c == context)
        for early, late in zip(ends, ends[1:], strict=False):
            pairs += 1
            growing += max(points[context, early]) < min(points[context, late])
    print(f"later points of one history with more letters: {growing} of {pairs}")


def located(records: list[QuestionRecord], contexts: Path) -> None:
    """Print, per rule, the questions located, and per d where the token distance lies."""
    store = ContextStore(contexts)
    rules: Counter[str] = Counter()
    back: dict[int, Counter[int]] = defaultdict(Counter)
    for record in records:
        history = store.history(record.context_id, record.end_index)
        blocks = int(record.columns["distance_to_ref_in_blocks"])
        evidence = locate_evidence(history, blocks, token_distance(record.columns))
        rules[f"{evidence.rule}{'' if evidence.located else ' (not located)'}"] += 1
        if evidence.rule == "tokens":
            starts = session_starts([message.role for message in history])
            ((start, _),) = evidence.spans
            back[blocks][len(starts) - 1 - starts.index(start) - (blocks - 1)] += 1
    print("located, by rule: " + ", ".join(f"{rule} {n}" for rule, n in sorted(rules.items())))
    print("d  questions  sessions back - (d - 1): questions")
    for blocks, offsets in sorted(back.items()):
        shown = ", ".join(f"{offset:+d}: {n}" for offset, n in sorted(offsets.items()))
        print(f"{blocks:<2} {sum(offsets.values()):>9}  {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, help="a PersonaMem question file")
    parser.add_argument("contexts", type=Path, nargs="?", help="its context file")
    arguments = parser.parse_args()
    path = arguments.questions
    split = PERSONAMEM.split_of_questions(path)
    if split is None:
        raise SystemExit(f"{path}: not named as a question file of {PERSONAMEM.name}")
    records = PERSONAMEM.read_questions(path, split)
    token_fields(records)
    if arguments.contexts is not None:
        located(records, arguments.contexts)


if __name__ == "__main__":
    main()
