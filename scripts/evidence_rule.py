"""What a PersonaMem question file says about where the evidence lies: the figures
behind the v1 evidence rule (docs/memory-and-retrieval.md#where-the-evidence-lies).

    python scripts/evidence_rule.py ../shared/data/questions_32k.csv

Per `distance_to_ref_in_blocks` value d: the questions, the median share of the history
between the evidence and the question (`distance_to_ref_proportion_in_context`), and
the number of equal sessions that median implies under each reading of d: the evidence
lies d sessions before the question's own session (a share of (d + 1/2) / S), or in the
d-th most recent session, the question's own counted as the first (a share of
(d - 1/2) / S). The reading whose implied S stays level across d, as the questions'
history lengths do, is the one the data support. Then, over questions asked at the
same point of the same history, whether a larger d always lies further back in tokens.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from inspect_personamem.datasets.v1.records import QuestionRecord
from inspect_personamem.datasets.v1.spec import PERSONAMEM


def _share(record: QuestionRecord) -> float:
    return float(str(record.columns["distance_to_ref_proportion_in_context"]).rstrip("%")) / 100


def implied_sessions(records: list[QuestionRecord]) -> None:
    """Print, per distance, the median share and the sessions each reading implies."""
    by_distance: dict[int, list[QuestionRecord]] = defaultdict(list)
    for record in records:
        by_distance[int(record.columns["distance_to_ref_in_blocks"])].append(record)
    print("d  questions  median share  mean end index  S (d before own)  S (d-th most recent)")
    for d, group in sorted(by_distance.items()):
        share = statistics.median(map(_share, group))
        end = statistics.mean(r.end_index for r in group)
        print(
            f"{d:<2} {len(group):>9}  {share:>12.2f}  {end:>14.0f}  {(d + 0.5) / share:>16.1f}"
            f"  {(d - 0.5) / share:>19.1f}"
        )


def ordered_in_tokens(records: list[QuestionRecord]) -> None:
    """Print how often, at one point of one history, the questions of the next larger
    distance all lie further back in tokens than those of the smaller."""
    points: dict[tuple[str, int], dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        tokens = int(record.columns["distance_to_ref_in_tokens"])
        distance = int(record.columns["distance_to_ref_in_blocks"])
        points[record.context_id, record.end_index][distance].append(tokens)
    pairs = ordered = 0
    for distances in points.values():
        keys = sorted(distances)
        for near, far in zip(keys, keys[1:], strict=False):
            pairs += 1
            ordered += max(distances[near]) < min(distances[far])
    print(f"adjacent distances at one point of one history: {ordered} of {pairs} token-ordered")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, help="a PersonaMem question file")
    path = parser.parse_args().questions
    split = PERSONAMEM.split_of_questions(path)
    if split is None:
        raise SystemExit(f"{path}: not named as a question file of {PERSONAMEM.name}")
    records = PERSONAMEM.read_questions(path, split)
    implied_sessions(records)
    ordered_in_tokens(records)


if __name__ == "__main__":
    main()
