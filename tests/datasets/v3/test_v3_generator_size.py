"""The PersonaMem-v3 generator at a size (`generate(history_tokens=...)`,
`synthetic.size`) and its query times (`synthetic.world`): a persona's long-context
history, counted as the package counts v3's tokens, averages the target at its queries'
times; the queries are the same at every size; query times fall on any second, not on
whole hours, so consecutive queries do not share a time by chance; `try`'s
`--queries-per-type` and `--history-tokens` reach the generator."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from statistics import mean

import pytest

from inspect_personamem.data.requests import text_tokens
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.offline.answers import MIN_PERSONAS
from inspect_personamem.datasets.v3.persona.longctx import history_text
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.spec import V3Folder, check_folder
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import VERSION

TOLERANCE = 0.05
"""How far the mean history at the queries' times may lie from the target: the added
events' gaps are jittered, so the count before a time wanders by a few events."""


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


@pytest.mark.parametrize(("personas", "k", "seed"), [(3, 2, 0), (1, 7, 1)])
def test_query_times_fall_on_any_second_and_consecutive_ones_differ(
    tmp_path: Path, personas: int, k: int, seed: int
) -> None:
    # the real rows' times fall on any second of the hour (48 of the fixtures' 49 rows,
    # e.g. 105 seq 146 at 19:43:45, 115 seq 9 at 01:23:35); the generator's whole hours
    # made 44% of consecutive queries share a time by chance at 7 a type
    folder = generate(tmp_path, personas=personas, queries_per_type=k, seed=seed)
    for uid in folder.personas:
        times = query_times(folder, uid)
        assert times == sorted(times)
        shared = sum(a == b for a, b in zip(times, times[1:], strict=False))
        assert shared <= len(times) // 100, uid
        assert sum(t % 3600 == 0 for t in times) <= len(times) // 100, uid
        assert len({t % 60 for t in times}) > 30, uid


def test_try_writes_personas_of_the_size_and_count_its_options_give(tmp_path: Path) -> None:
    trying = VERSION.trying
    assert trying is not None
    options = {"queries_per_type": 1, "history_tokens": 70_000}
    questions = trying.trial(options, 1, 2).write(tmp_path)
    folder = check_folder(tmp_path, given_by="test")
    assert questions == folder.queries_file(folder.personas[0])
    assert len(folder.personas) == MIN_PERSONAS
    for uid in folder.personas:
        assert len(query_times(folder, uid)) == len(TASK_TYPES)
        assert mean(history_tokens(folder, uid)) == pytest.approx(70_000, rel=TOLERANCE)
