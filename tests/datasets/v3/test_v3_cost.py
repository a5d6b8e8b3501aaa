"""PersonaMem-v3's cost estimate (`datasets/v3/cost.py`): the authors' figures priced by
hand with and without a prompt cache, each setting's requests counted in a generated
folder, and what needs a folder refused in one line."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest
from inspect_ai.model import ModelCost
from support.v3_backend import shape

from inspect_personamem.cli import main
from inspect_personamem.cost.estimate import CostEstimate, Plan, estimate
from inspect_personamem.cost.prompt_cache import CacheSettings
from inspect_personamem.data.requests import GraderCalls, Request, text_tokens
from inspect_personamem.datasets.declared import Where
from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.judges.base import Judge
from inspect_personamem.datasets.v3.persona.histories import PersonaContexts
from inspect_personamem.datasets.v3.persona.streams import PersonaStreams
from inspect_personamem.datasets.v3.release.records import read_queries
from inspect_personamem.datasets.v3.release.spec import DATA_DIR_ENV, V3Folder
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.datasets.v3.version import VERSION
from inspect_personamem.errors import PersonaMemArgumentError

PRICE = ModelCost(input=2.0, output=8.0, input_cache_read=0.5, input_cache_write=2.0)
"""USD per 1M tokens."""
ONE_AT_A_TIME = Plan("grouped", settings=CacheSettings(concurrency=1, latency_s=1, ttl_s=None))
"""Each request served before the next starts, no expiry: every cache hit is made."""


def v3(
    history: str | None = None, layout: str | None = None, folder: Path | None = None
) -> CostEstimate:
    selected = {"family": "all", "history": history, "history_layout": layout}
    return estimate(VERSION, selected, Where(folder), ONE_AT_A_TIME)


@pytest.fixture(autouse=True)
def no_folder_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)


@pytest.mark.slow  # the estimate over the declared 22,000 requests
def test_the_declared_long_context_run_shares_only_a_profile_in_the_authors_layout() -> None:
    result = v3()
    # 100 personas x 220 queries x 416,000 tokens
    assert result.questions == 22_000
    assert result.cache.input_tokens == 9_152_000_000
    assert result.cache.cached_tokens == result.prefix_tokens == 0
    # 9,152M x $2 + 22,000 x 300 output x $8, per 1M
    assert result.cost(PRICE, caching=False) == pytest.approx(18_304 + 52.8)
    assert result.cost(PRICE, caching=True) == pytest.approx(18_356.8)
    assert result.source.startswith("declared figures, no data read: 100 personas x 220")


@pytest.mark.slow  # the estimate over the declared 22,000 requests
def test_the_declared_events_layout_reads_all_but_each_personas_first_from_the_cache() -> None:
    result = v3("full", "events")
    # every query's 416,000 tokens a prefix; each persona's first is written, the rest read
    assert result.prefix_tokens == 9_152_000_000
    assert result.cache.cached_tokens == result.ideal_cached_tokens == 21_900 * 416_000
    # read 9,110.4M x $0.5, write 41.6M x $2, output 52.8
    assert result.cost(PRICE, caching=True) == pytest.approx(4_555.2 + 83.2 + 52.8)


@pytest.mark.slow  # the estimate over the declared 22,000 requests
def test_the_declared_memory_run_is_the_authors_few_thousand_tokens_a_query() -> None:
    result = v3("memory")
    assert result.cache.input_tokens == 22_000 * 4_000 and result.prefix_tokens == 0
    assert result.grader is not None and not result.grader.counted  # as at `--limit`


@pytest.mark.parametrize(
    ("history", "layout", "says"),
    [
        ("none", None, "--history none needs --data-dir"),
        ("memory", "events", "--history-layout events lays out history=full"),
    ],
)
def test_what_the_figures_do_not_give_is_refused_in_one_line(
    history: str, layout: str | None, says: str
) -> None:
    with pytest.raises(PersonaMemArgumentError, match=f"^{says}"):
        v3(history, layout)
    with pytest.raises(PersonaMemArgumentError, match="^--family personalization needs"):
        selected = {"family": "personalization", "history": None, "history_layout": None}
        estimate(VERSION, selected, Where())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> V3Folder:
    return generate(tmp_path_factory.mktemp("v3"), personas=2, queries_per_type=1, seed=4)


def requests(history: str, layout: str | None, folder: V3Folder) -> list[Request]:
    assert VERSION.estimate is not None
    selected = {"family": "all", "history": history, "history_layout": layout}
    return list(VERSION.estimate.requests(selected, Where(folder.root)).requests)


def test_a_folders_queries_are_counted_as_each_setting_sends_them(folder: V3Folder) -> None:
    none = requests("none", None, folder)
    authors = requests("full", None, folder)
    events = requests("full", "events", folder)
    memory = requests("memory", None, folder)
    assert len(none) == len(authors) == len(events) == len(memory) == 2 * 31
    streams = PersonaStreams(folder.root / "backend")
    timeline = PersonaContexts(streams, "events")
    for alone, whole, extended, remembered in zip(none, authors, events, memory, strict=True):
        user, end = alone.context_id, alone.end_index
        assert alone.prefix_tokens == 0 and remembered == Request(user, 0, 4_000, end)
        # the task prompt is the same in every setting: the history is what differs
        prompt = alone.input_tokens
        # the authors' text opens with an app's block, which grows: nothing shared
        assert whole.prefix_tokens == 0 < whole.input_tokens - prompt
        # the timeline: shared, the messages every later query sends again (its blocks
        # before the one its time cuts)
        history = timeline.history(user, end)
        shown = sum(text_tokens(m.text) for m in history)
        complete = timeline.complete_at(user, end)
        shared = sum(text_tokens(m.text) for m in history[:complete])
        assert extended == Request(user, shared, shown + prompt, end)
        assert complete >= len(history) - 1 and len(history) < end  # events in blocks
    for uid in folder.personas:  # a persona's timeline grows with its queries' times
        mine = sorted((r for r in events if r.context_id == uid), key=lambda r: r.end_index)
        prefixes = [r.prefix_tokens for r in mine]
        assert prefixes == sorted(prefixes) and prefixes[0] < prefixes[-1]
        for early, late in pairwise(mine):  # what is priced as shared is sent again
            complete = timeline.complete_at(uid, early.end_index)
            again = shape(timeline.history(uid, late.end_index)[:complete])
            assert again == shape(timeline.history(uid, early.end_index)[:complete])


def test_the_command_prices_a_folder_and_names_it_synthetic(
    folder: V3Folder, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["estimate", "--dataset", "v3", "--model", "openai/gpt-4.1", "--history-layout"]
    assert main([*argv, "events", "--data-dir", str(folder.root)]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines()[:3])
    assert rows["split"].startswith("v3 all, history=full (events) (local folder")
    assert rows["data"].startswith("synthetic: benchmark/")
    # two personas, nine files each: queries, profile, four apps, ai_studio, calendar, trending
    assert "(18 files) written by inspect_personamem.datasets.v3.generator" in rows["data"]
    assert rows["questions"] == "62"


def grader(folder: V3Folder, judge: str) -> tuple[list[Request], GraderCalls]:
    assert VERSION.estimate is not None
    selected = {"family": "all", "history": "none", "history_layout": None, "judge": judge}
    asked = VERSION.estimate.requests(selected, Where(folder.root))
    assert asked.grader is not None
    return list(asked.requests), asked.grader


def test_the_judges_calls_are_counted_from_each_rows_prompts(folder: V3Folder) -> None:
    """Unified: one call for each query of a type a built judge scores (the gate aside);
    per_dimension: one a rubric dimension, so more calls than queries; each prompt holds
    the row's gold reply, so is longer than it."""
    requests, unified = grader(folder, "unified")
    queries = [q for uid in folder.personas for q in read_queries(folder.queries_file(uid))]
    assert len(unified.prompts) == len(requests) == len(queries)
    judged = {q.task_type for q in queries if isinstance(TASK_TYPES[q.task_type].scorer, Judge)}
    for query, calls in zip(queries, unified.prompts, strict=True):
        scorer = TASK_TYPES[query.task_type].scorer
        if not isinstance(scorer, Judge) or not scorer.built:
            assert calls == ()
            continue
        assert len(calls) <= 1
        gold = text_tokens(scorer.shown(scorer.replies(query.instance)[0]))
        assert all(tokens > gold for tokens in calls)
    assert 0 < unified.judged <= len(judged) * 2 and unified.calls == unified.judged
    _, per_dimension = grader(folder, "per_dimension")
    assert per_dimension.calls > per_dimension.judged
    assert "judge=per_dimension" in per_dimension.words


def test_without_a_folder_the_judges_are_said_not_counted() -> None:
    # the first ten of the declared requests sent (`--limit 10`): the whole 22,000's cache
    # simulation is the slow tests'; the grader's calls are the run's either way
    selected = {"family": "all", "history": "memory", "history_layout": None}
    result = estimate(VERSION, selected, Where(), replace(ONE_AT_A_TIME, limit=10))
    assert result.questions == 10
    assert result.grader is not None and not result.grader.counted
    assert result.grader.words.startswith("not counted: the judges' prompts")


def test_the_apps_agent_is_priced_at_its_budgets_ceiling(folder: V3Folder) -> None:
    """A query's whole token budget as input and every turn of its budget, the authors'
    (heavy types double); the declared figures have no task types to read it from."""
    queries = [q for uid in folder.personas for q in read_queries(folder.queries_file(uid))]
    apps = requests("apps", None, folder)
    for query, request in zip(queries, apps, strict=True):
        heavy = TASK_TYPES[query.task_type].heavy
        assert (request.input_tokens, request.calls) == ((600_000, 30) if heavy else (300_000, 15))
        assert request.prefix_tokens == 0
    assert {r.calls for r in apps} == {15, 30}
    with pytest.raises(PersonaMemArgumentError, match="^--history apps needs --data-dir"):
        v3("apps")
