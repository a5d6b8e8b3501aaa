"""`benchmarks/logprob_prefix.py` end to end on a tiny model and split, on CPU: the table's
four rows, and the shared-prefix log-probabilities agreeing with the naive ones."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = [pytest.mark.local_model, pytest.mark.slow]

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "logprob_prefix.py"


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
    args = f"{tiny} {split} --naive-questions 3 --repeats 2 --json {tmp_path / 'out.json'}"
    report = load_benchmark().main(args.split())

    printed = capsys.readouterr().out
    rows = report["rows"]
    assert [row["method"] for row in rows] == [
        "naive, one full pass per option",
        "shared prefix",
        "shared prefix + reuse across questions",
        "shared prefix + reuse, whole split",
    ]
    for row in rows:
        assert f"| {row['method']} |" in printed
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == report
    assert [row["questions"] for row in rows] == [3, 3, 3, 5]
    naive, shared, reuse, _ = (row["forward_tokens"] for row in rows)
    assert naive > shared > reuse
    assert rows[2]["reused_tokens"] > 0
    for row in rows:
        assert row["max_abs_difference"] < 1e-4
        assert row["choices_agree"] == 3
        assert row["flops"] > 0 and row["share_of_peak"] is None  # no peak known on CPU
