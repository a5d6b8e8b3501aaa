"""The generator's hidden-persona QA rows (`synthetic.personalization`): all of a
persona's at one time, as the authors build them, each asking its own surface query, as
persona 115's real rows at one time do ("any good clips to unwind with tonight", "any
book or podcast recs for a quiet evening in"): with one history and one prompt, rows of
different gold could not be told apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.release.records import read_queries


@pytest.mark.parametrize(("seed", "k"), [(0, 2), (3, 7), (5, 14)])
def test_a_personas_hidden_persona_rows_share_a_time_and_ask_each_its_own_query(
    tmp_path: Path, seed: int, k: int
) -> None:
    folder = generate(tmp_path, personas=2, queries_per_type=k, seed=seed)
    for uid in folder.personas:
        rows = [
            q
            for q in read_queries(folder.queries_file(uid))
            if q.task_type == "hidden_persona_implicit_qa"
        ]
        assert len(rows) == k
        assert len({q.ts for q in rows}) == 1
        assert len({q.query_text for q in rows}) == k, [q.query_text for q in rows]
