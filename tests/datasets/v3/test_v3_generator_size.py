"""The PersonaMem-v3 generator at a size (`generate(history_tokens=...)`,
`synthetic.size`) and its query times (`synthetic.world`): a persona's long-context
history, counted as the package counts v3's tokens, averages the target at its queries'
times; the queries are the same at every size; query times share a time where the
release's do (the authors' batches: agentic types on one grid point, the context-shift
rows at `t_probe`, the hidden-persona rows at one anchor, as persona 115's rows hold
them) and else fall on any second, not on whole hours; `try`'s `--queries-per-type` and
`--history-tokens` reach the generator."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Final

import pytest

from inspect_personamem.data.requests import text_tokens
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.offline.answers import MIN_PERSONAS
from inspect_personamem.datasets.v3.persona.longctx import history_text
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.release.spec import V3Folder, check_folder
from inspect_personamem.datasets.v3.synthetic.agentic_tasks import BUILT_SIX
from inspect_personamem.datasets.v3.synthetic.world import DAY, HOUR
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import VERSION

TOLERANCE = 0.05
"""How far the mean history at the queries' times may lie from the target: the added
events' gaps are jittered, so the count before a time wanders by a few events."""


REAL: Final = Path(__file__).resolve().parents[2] / "fixtures" / "personamem_v3_real"
REAL_PERSONAS: Final = sorted(p.name for p in REAL.iterdir() if (p / "queries.csv").is_file())
SHARED_TOLERANCE: Final = 0.1
"""How far the generated share of queries sharing a time may lie from the real rows'
(20 of 49, 0.41): the fixtures are 49 rows of three personas, copied in runs (a batch's
rows sit side by side), so their share is known only roughly."""


def query_times(folder: V3Folder, uid: str) -> list[int]:
    """The `ts` of each row of the persona's `queries.csv`, in file order."""
    text = folder.queries_file(uid).read_text(encoding="utf-8").split("\n", 1)[1]
    return [int(row["ts"]) for row in csv.DictReader(io.StringIO(text))]


def history_tokens(folder: V3Folder, uid: str) -> list[int]:
    """The long-context history's tokens at each of the persona's query times, as the
    task builds it (`history_text` of the view masked at the time)."""
    streams = PersonaStreams(folder.persona_folder(uid).parent)
    return [text_tokens(history_text(streams.visible(uid, t))) for t in query_times(folder, uid)]


@pytest.mark.parametrize(("k", "target"), [(1, 60_000), (2, 150_000)])
def test_a_sized_persona_averages_the_target_at_its_query_times(
    tmp_path: Path, k: int, target: int
) -> None:
    folder = generate(tmp_path, personas=1, queries_per_type=k, seed=4, history_tokens=target)
    [uid] = folder.personas
    tokens = history_tokens(folder, uid)
    assert mean(tokens) == pytest.approx(target, rel=TOLERANCE)
    # a query's history grows with its time, as the release's does
    times = query_times(folder, uid)
    assert tokens[times.index(max(times))] > tokens[times.index(min(times))]


def test_the_size_adds_background_and_leaves_the_queries_as_they_were(tmp_path: Path) -> None:
    small = generate(tmp_path / "small", personas=1, queries_per_type=1, seed=4)
    sized = generate(
        tmp_path / "sized", personas=1, queries_per_type=1, seed=4, history_tokens=80_000
    )
    [uid] = small.personas
    assert sized.personas == small.personas
    same = small.queries_file(uid).read_bytes()
    assert sized.queries_file(uid).read_bytes() == same
    assert mean(history_tokens(small, uid)) < 80_000 * (1 - TOLERANCE)
    # a target the default background already passes adds nothing
    least = generate(tmp_path / "least", personas=1, queries_per_type=1, seed=4, history_tokens=1)
    assert history_tokens(least, uid) == history_tokens(small, uid)


def test_a_size_below_one_token_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="history_tokens"):
        generate(tmp_path, personas=1, history_tokens=0)


def real_rows(uid: str) -> dict[int, tuple[str, int]]:
    """Each real row's `task_type` and `ts` by `seq`: the row's first cells, read as
    the line's first fields (no cell holds a newline, and none before `query_text` a
    comma; the rows' later cells outrun the csv module's default field limit)."""
    lines = (REAL / uid / "queries.csv").read_text(encoding="utf-8").splitlines()[2:]
    cells = [line.split(",", 8) for line in lines]
    return {int(c[1]): (c[4], int(c[6])) for c in cells}


def shared_share(times: list[int]) -> float:
    """The share of `times` that another of them equals (a batch built at one instant)."""
    counts = Counter(times)
    return sum(counts[t] > 1 for t in times) / len(times)


def test_the_real_rows_share_times_on_the_authors_grid() -> None:
    # the rule the generator follows, held on the release's rows: persona 115's agentic
    # rows lie on the grids of 6 and of 5 points over the 7 days before its t_probe (its
    # context-shift row's time), its hidden-persona rows at the window's start
    rows = real_rows("115")
    probe = rows[132][1]  # over_personalization_context_shift
    opening = probe - 7 * DAY
    assert {rows[s][1] for s in (0, 6, 7)} == {opening}  # hidden persona rec and QA
    agentic = {seq: row for seq, row in rows.items() if row[0].startswith("agentic_")}
    assert len(agentic) == 11
    for seq, (task, ts) in agentic.items():
        n = 6 if task in BUILT_SIX else 5
        assert (ts - opening) * (n + 1) % (probe - opening) == 0, seq


@pytest.mark.parametrize(("personas", "k", "seed"), [(3, 2, 0), (1, 7, 1)])
def test_query_times_share_where_the_release_builds_a_batch(
    tmp_path: Path, personas: int, k: int, seed: int
) -> None:
    real = [ts for uid in REAL_PERSONAS for _, ts in real_rows(uid).values()]
    assert len(real) == 49
    folder = generate(tmp_path, personas=personas, queries_per_type=k, seed=seed)
    for uid in folder.personas:
        rows = read_queries(folder.queries_file(uid))
        times = [q.ts for q in rows]
        assert times == sorted(times)
        # as many queries share their time as in the real rows (20 of the fixtures' 49)
        assert shared_share(times) == pytest.approx(shared_share(real), abs=SHARED_TOLERANCE)
        # and none by chance on whole hours (the real rows: 1 of 49 on the hour)
        assert sum(t % HOUR == 0 for t in times) <= len(times) // 100, uid
        distinct = set(times)
        assert len({t % 60 for t in distinct}) > min(30, len(distinct) // 2), uid
        # the batches are the authors': agentic types on the grids of k + 1 and k over
        # the window from the hidden-persona rows to the context-shift rows, runs of
        # 3-5 types a time as persona 115's manifest shows them
        [opening] = {q.ts for q in rows if q.task_type.startswith("hidden_persona_")}
        [probe] = {q.ts for q in rows if q.task_type == "over_personalization_context_shift"}
        agentic = [q for q in rows if q.task_type.startswith("agentic_")]
        for q in agentic:
            n = k + 1 if q.task_type in BUILT_SIX else k
            grid = [opening + (i + 1) * (probe - opening) // (n + 1) for i in range(n)]
            assert q.ts in grid, (uid, q.query_id)
        batches = Counter(q.ts for q in agentic)
        assert set(batches.values()) <= set(range(3, 6)), uid
        assert len(batches) == 2 * k


def test_try_writes_personas_of_the_size_and_count_its_options_give(tmp_path: Path) -> None:
    trying = VERSION.trying
    assert trying is not None
    # twice the default's mean at one query a type (about 17,000 tokens), and no more:
    # counting a persona's history at each query's time is most of the test's time
    options = {"queries_per_type": 1, "history_tokens": 40_000}
    questions = trying.trial(options, 1, 2).write(tmp_path)
    folder = check_folder(tmp_path, given_by="test")
    assert questions == folder.queries_file(folder.personas[0])
    assert len(folder.personas) == MIN_PERSONAS
    for uid in folder.personas:
        assert len(query_times(folder, uid)) == len(TASK_TYPES)
        assert mean(history_tokens(folder, uid)) == pytest.approx(40_000, rel=TOLERANCE)
