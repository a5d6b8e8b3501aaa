"""The cost estimate of PersonaMem-v2: tokens from the question file, caching in the
order the task sends, the command's `--dataset v2` and its one-line refusals."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest
from support.helpers import SMALL_V2, mock_model, run_script, run_task
from support.servers.hf_hub import serve_hub

from inspect_personamem.cli import main
from inspect_personamem.cost.estimate import CostEstimate, Plan, estimate
from inspect_personamem.cost.prompt_cache import CacheSettings
from inspect_personamem.data.order import order_records
from inspect_personamem.datasets.declared import Where
from inspect_personamem.datasets.registry import version
from inspect_personamem.datasets.v2.files import load_questions
from inspect_personamem.datasets.v2.generator import generate_v2
from inspect_personamem.datasets.v2.histories import HistoryStore, PersonaContexts
from inspect_personamem.datasets.v2.prompt import asked, options_message
from inspect_personamem.datasets.v2.records import V2Record
from inspect_personamem.datasets.v2.samples import questions_at
from inspect_personamem.datasets.v2.spec import (
    DATA_DIR_ENV,
    LENGTHS,
    PERSONAMEM_V2,
    Length,
    V2Source,
)

REPO, REVISION = PERSONAMEM_V2.repo_id, PERSONAMEM_V2.revision
ESTIMATE = (
    "import contextlib, io, json, sys\n"
    "from inspect_personamem.cli import main\n"
    "out, err = io.StringIO(), io.StringIO()\n"
    "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
    "    code = main(json.loads(sys.argv[1])['argv'])\n"
    "print(json.dumps({'code': str(code), 'out': out.getvalue(), 'err': err.getvalue()}))\n"
)
"""Runs the command in a fresh interpreter (huggingface_hub reads HF_* at import)."""


def records_of(folder: Path) -> list[V2Record]:
    return load_questions(V2Source(data_dir=folder)).records


def estimate_v2_cost(folder: Path, length: Length, plan: Plan | None = None) -> CostEstimate:
    """The estimate of the benchmark subset in `folder` at `length`."""
    selected = {"subset": "benchmark", "length": length}
    return estimate(version("v2"), selected, Where(folder), plan or Plan())


def history_column(record: V2Record, length: Length) -> int:
    return int(getattr(record, f"total_tokens_in_chat_history_{length}"))


@pytest.mark.parametrize("length", LENGTHS)
def test_the_history_is_the_rows_token_column(small_v2: Path, length: Length) -> None:
    records = records_of(small_v2)
    result = estimate_v2_cost(small_v2, length, Plan(output_tokens_per_question=10))
    assert result.label == f"v2 benchmark {length}"
    assert result.questions == len(records) > 0
    assert result.prefix_tokens == sum(history_column(r, length) for r in records)
    assert result.output_tokens == 10 * len(records)
    # the request's own part: the user message and the options, four characters a token
    own = [
        round(len(asked(r.query) + options_message((r.correct_answer, *r.incorrect_answers))) / 4)
        for r in records
    ]
    assert result.cache.input_tokens == result.prefix_tokens + sum(own)


def test_the_128k_history_is_counted_at_its_length(small_v2: Path) -> None:
    short, long = (estimate_v2_cost(small_v2, n) for n in LENGTHS)
    assert long.prefix_tokens > short.prefix_tokens
    assert long.questions == short.questions


def test_one_at_a_time_every_question_after_a_personas_first_is_cached(small_v2: Path) -> None:
    """All questions of a persona share its whole history: one request at a time, with
    no expiry, each persona misses once, then hits its whole history every time."""
    records = records_of(small_v2)
    result = estimate_v2_cost(small_v2, "32k", Plan(settings=CacheSettings(1, 1.0, None)))
    per_persona = Counter(r.persona_id for r in records)
    history = {r.persona_id: history_column(r, "32k") for r in records}
    expected = sum((count - 1) * history[p] for p, count in per_persona.items())
    assert expected > 0
    assert result.cache.cached_tokens == result.ideal_cached_tokens == expected


def test_interleaving_caches_what_file_order_loses(small_v2: Path) -> None:
    """In file order a persona's questions follow each other, so two of them run together
    and the second misses; the task's default order, interleaved across personas, sends
    a persona's next question only once its first has finished: every later one hits."""
    two = CacheSettings(concurrency=2, latency_s=20.0, ttl_s=None)
    interleaved = estimate_v2_cost(small_v2, "32k", Plan(settings=two))
    in_file = estimate_v2_cost(small_v2, "32k", Plan(order="file", settings=two))
    assert interleaved.order == "interleaved" and in_file.order == "file"
    assert interleaved.cache.cached_tokens == interleaved.ideal_cached_tokens
    assert in_file.cache.cached_tokens < interleaved.cache.cached_tokens
    assert interleaved.shares["file"] == in_file.cache.share
    assert in_file.better_order() == "interleaved"


@pytest.mark.slow  # an end-to-end run
def test_a_limit_counts_the_questions_inspect_eval_limit_asks(
    small_v2: Path, tmp_path: Path
) -> None:
    """The v2 task sends questions interleaved across personas by default: `--limit 3`
    prices the first three of that order, the ones `inspect eval --limit 3` asks."""
    log = run_task(
        "inspect_personamem/personamem_v2_32k", mock_model(lambda m: "Final Answer: A"),
        tmp_path, {"data_dir": str(small_v2)}, limit=3,
    )  # fmt: skip
    asked_ids = {str(sample.id) for sample in log.samples or []}
    records = records_of(small_v2)
    contexts = PersonaContexts(HistoryStore(V2Source(data_dir=small_v2), "32k"), records)
    first = order_records(questions_at(records, "32k", contexts), "interleaved")[:3]
    assert asked_ids == {f"{q.record.persona_id}:{q.index}" for q in first}
    assert len({q.record.persona_id for q in first}) == 3  # not the file's first three
    result = estimate_v2_cost(small_v2, "32k", Plan(limit=3))
    assert result.questions == 3
    assert result.prefix_tokens == sum(history_column(q.record, "32k") for q in first)


def test_the_command(small_v2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(small_v2)
    code = main(["estimate", "--dataset", "v2", "--length", "128k", "--model", "openai/gpt-4.1",
                 "--data-dir", str(small_v2), "--concurrency", "1", "--order", "file"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"split                 v2 benchmark 128k (local folder {small_v2})"
    assert lines[1] == (
        "data                  synthetic: benchmark/text/benchmark.csv written by "
        "inspect_personamem.datasets.v2.generator"
    )
    assert lines[2] == f"questions             {len(records)}"
    history = sum(history_column(r, "128k") for r in records)
    assert (
        lines[3].startswith("input tokens          ") and f"of it {history:,} a prefix" in lines[3]
    )
    assert "; order=file, 1 concurrent, 20 s a request, 300 s cache lifetime)" in lines[5]
    assert lines[6].startswith("by order              interleaved ")
    assert lines[-4].startswith("cost without caching  $")
    assert lines[-3].startswith("cost with caching     $")
    assert lines[-2].startswith("batch cost            $")
    assert lines[-1].startswith("batch terms           openai: 50% off")


def test_the_command_reads_another_subset_and_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    generate_v2(tmp_path, subset="val", shape=dataclasses.replace(SMALL_V2, personas=1))
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    code = main(["estimate", "--dataset", "v2", "--subset", "val", "--length", "32k",
                 "--model", "openai/gpt-4.1"])  # fmt: skip
    assert code == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"split                 v2 val 32k (local folder {tmp_path})"
    )


def test_a_folder_without_the_v2_question_file_is_named(
    small_split: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A v1 folder holds no v2 question file: the error names the file and the option."""
    code = main(["estimate", "--dataset", "v2", "--length", "32k", "--model", "x/y",
                 "--data-dir", str(small_split)])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == (
        f"inspect-personamem estimate: {small_split} (given by --data-dir) lacks "
        f"benchmark/text/benchmark.csv for subset benchmark. Put the files of {REPO} there, "
        "or point --data-dir elsewhere.\n"
    )


@pytest.mark.slow
def test_the_hub_is_v2s_at_its_pinned_revision_unless_given(small_v2: Path, tmp_path: Path) -> None:
    """Without --data-dir the question file comes from PersonaMem-v2's repository at its
    pinned revision (where it must be the released file, which a synthetic one is not);
    --revision reads another."""
    argv = ["estimate", "--dataset", "v2", "--length", "32k", "--model", "openai/gpt-4.1"]
    other = "1" * 40
    with serve_hub(small_v2, REPO, REVISION) as (endpoint, requests):
        env = {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "pinned")}
        pinned = run_script(ESTIMATE, env, argv=argv)
    assert f"GET /datasets/{REPO}/resolve/{REVISION}/benchmark/text/benchmark.csv" in requests
    release = f"the released benchmark/text/benchmark.csv of {REPO} at revision {REVISION}"
    rows = len(records_of(small_v2))
    assert pinned["code"] == "2" and f" is not {release} ({rows} rows" in pinned["err"]
    with serve_hub(small_v2, REPO, other) as (endpoint, _):
        env = {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "other")}
        found = run_script(ESTIMATE, env, argv=[*argv, "--revision", other])
    assert found["code"] == "0", found["err"]
    assert found["out"].splitlines()[0] == (
        f"split                 v2 benchmark 32k (hf://datasets/{REPO}@{other})"
    )
