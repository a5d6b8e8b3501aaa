"""`benchmarks/logprob_prefix.py` end to end on a tiny model and split, on CPU: the table's
rows, the shared-prefix log-probabilities agreeing with the naive ones, and the same split
through `inspect eval` logging what the benchmark measured."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.helpers import ROOT

pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
import torch  # noqa: E402

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

SCRIPT = ROOT / "benchmarks" / "logprob_prefix.py"


def load_benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("logprob_prefix", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_benchmark_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = "--hidden 32 --layers 2 --heads 4 --kv-heads 2 --intermediate 64"
    split = "--contexts 2 --questions 5 --min-messages 20 --max-messages 30 --message-chars 80"
    run = f"--naive-questions 3 --repeats 2 --through-inspect --json {tmp_path / 'out.json'}"
    run += f" --profile {tmp_path / 'trace.json'}"
    report = load_benchmark().main(f"{tiny} {split} {run}".split())

    printed = capsys.readouterr().out
    rows = report["rows"]
    # the profile of the questions after the first: attention and the trace
    assert "profile of the naive questions after the first, with reuse (4 passes" in printed
    assert "scaled_dot_product" in printed
    assert json.loads((tmp_path / "trace.json").read_text(encoding="utf-8"))["traceEvents"]
    assert [row["method"] for row in rows] == [
        "naive, one full pass per option",
        "shared prefix",
        "shared prefix + reuse across questions",
        "shared prefix + reuse, whole split",
        "shared prefix + reuse, whole split, through inspect eval (hf/)",
    ]
    for row in rows:
        assert f"| {row['method']} |" in printed
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == report
    assert [row["questions"] for row in rows] == [3, 3, 3, 5, 5]
    # per question: a pass per option; the prefix, then the options packed, copying nothing
    assert [row["passes"] for row in rows[:3]] == [12, 6, 6]
    assert rows[0]["cache_copies"] == rows[1]["cache_copies"] == 0
    assert report["software"]["torch"] == torch.__version__
    naive, shared, reuse, whole, logged = (row["forward_tokens"] for row in rows)
    assert naive > shared > reuse
    assert rows[2]["reused_tokens"] > 0
    assert (logged, rows[4]["reused_tokens"]) == (whole, rows[3]["reused_tokens"]) != (whole, 0)
    assert rows[4]["flops"] == rows[3]["flops"]
    for row in rows:
        assert row["choices_agree"] == 3
        assert row["flops"] > 0 and row["share_of_peak"] is None  # no peak known on CPU
        assert row["peak_gib"] is None  # measured on CUDA only
    for row in rows[:4]:
        assert row["max_abs_difference"] < 1e-4
    assert rows[4]["max_abs_difference"] is None  # the log holds sums: checked apart
    assert report["through_inspect"]["questions"] == 5
    assert report["through_inspect"]["choices_agree"] == 5
    assert report["through_inspect"]["max_abs_difference"] < 1e-6
    assert "through inspect eval:" in printed and "(5/5)" in printed
    timing = report["through_inspect"]
    parts = ("before_first_model_call_s", "model_calls_s", "between_model_calls_s")
    assert sum(timing[part] for part in (*parts, "after_last_model_call_s")) == pytest.approx(
        timing["call_s"]
    )
    assert rows[4]["wall_s"] == pytest.approx(
        timing["model_calls_s"] + timing["between_model_calls_s"]
    )
    assert all(timing[part] > 0 for part in parts)


def test_a_log_that_differs_from_the_benchmark_is_an_error_naming_the_question() -> None:
    benchmark = load_benchmark()
    evidence = benchmark.Evidence(100, 60, 40, (-3.0, -3.0), (3, 2))
    checked = benchmark.check_evidence({"q1": evidence}, {"q1": evidence})
    assert checked == {"questions": 1, "max_abs_difference": 0.0, "choices_agree": 1}
    other = dataclasses.replace(evidence, reused_tokens=0, forward_tokens=100)
    with pytest.raises(SystemExit, match="question_id q1: the log's forward_tokens 100 differ"):
        benchmark.check_evidence({"q1": evidence}, {"q1": other})
    with pytest.raises(SystemExit, match=r"missing \['q1'\], unexpected \['q2'\]"):
        benchmark.check_evidence({"q1": evidence}, {"q2": evidence})
    drifted = dataclasses.replace(evidence, option_logprobs=(-3.3, -3.0))
    checked = benchmark.check_evidence({"q1": evidence}, {"q1": drifted})
    assert checked["max_abs_difference"] == pytest.approx(0.1)
    assert checked["choices_agree"] == 1  # a: -1.0 (now -1.1) a token, b: -1.5
    flipped = dataclasses.replace(evidence, option_logprobs=(-6.0, -3.0))
    assert benchmark.check_evidence({"q1": evidence}, {"q1": flipped})["choices_agree"] == 0


TINY = (
    "--hidden 32 --layers 1 --heads 4 --kv-heads 2 --intermediate 64 --contexts 1 "
    "--questions 2 --min-messages 10 --max-messages 12 --message-chars 40 --naive-questions 1"
)


def test_a_failing_inside_eval_prints_its_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inspect (display="none") shows nothing of a failed eval: the benchmark prints the
    error's traceback, naming the question, before it exits."""
    from inspect_personamem.answer.logprob import solver

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("broken on purpose")

    monkeypatch.setattr(solver, "backend_for", broken)
    with pytest.raises(SystemExit, match="did not succeed") as exit:
        load_benchmark().main(f"{TINY} --through-inspect".split())
    printed = capsys.readouterr().err
    assert "Traceback (most recent call last)" in printed
    assert "RuntimeError: broken on purpose" in printed
    assert f"{exit.value.code}\nthe log: " in printed
    assert "question_id " in str(exit.value.code)


def test_the_benchmark_reports_each_row_as_it_is_measured(tmp_path: Path) -> None:
    """Cut short after its first rows, the run has printed and written them, with the
    software versions."""
    output = tmp_path / "out.json"
    command = [sys.executable, str(SCRIPT), *TINY.split(), "--through-inspect"]
    process = subprocess.Popen(
        [*command, "--json", str(output)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300
        first: dict[str, Any] = {"rows": []}
        while len(first["rows"]) < 3:  # written one at a time: wait for the three
            assert time.monotonic() < deadline
            if output.exists():
                first = json.loads(output.read_text(encoding="utf-8"))
            elif process.poll() is not None:
                break  # it ended with no file: the asserts below say so
            time.sleep(0.05)
    finally:
        process.kill()
        printed = process.communicate()[0].decode()
    assert first["software"]["torch"] == torch.__version__
    assert first["software"]["gpu"] is None  # CPU
    assert {"python", "transformers", "inspect_ai"} <= first["software"].keys()
    # the first three rows are measured together (per question in turn), so come first
    # (the next row may be written by the time the file is read: it is not waited for)
    methods = [row["method"] for row in first["rows"]]
    assert methods[:3] == [
        "naive, one full pass per option",
        "shared prefix",
        "shared prefix + reuse across questions",
    ]
    for method in methods:
        assert f"| {method} |" in printed
