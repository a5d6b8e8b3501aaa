"""PersonaMem's runs next to the authors' published numbers (`datasets/v1/report.py`,
`published.py`): which runs are compared, and why the others are not."""

from __future__ import annotations

import html
import math
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from support.helpers import mock_model
from support.reports import (
    Logs,
    by_measure,
    close,
    expected_by_label,
    grafted,
    grouped,
    hashed_answer,
    mean,
    published_gpt_4o,
    read_csv,
    run,
    runs_in,
)

from inspect_personamem.cli import main
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.question_types import CATEGORY_TITLES
from inspect_personamem.report import build_report
from inspect_personamem.report.glance import CAVEATS


def test_published_comparison_uses_the_named_model(logs: Logs, report_dir: Path) -> None:
    rows = read_csv(report_dir, "published")
    # model-a's two full-history runs: the published numbers are full-history runs, so the
    # no-history one is left out (with a note); model-b has no mapping
    assert len({row["run"] for row in rows}) == 2
    assert all("full history" in row["run"] for row in rows)
    assert {row["published model"] for row in rows} == {"GPT-4o"}
    page = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "history=none, answer=choice; the published numbers are full-history" in page
    gpt_4o = published_gpt_4o()
    expected = expected_by_label(logs, report_dir)
    by_run_measure = by_measure(rows, "run")
    for label in {row["run"] for row in rows}:
        row = by_run_measure[label, "overall"]
        ours = mean(list(expected[label].values.values()))
        assert float(row["published"]) == 0.45 and close(row["this run"], ours)
        assert close(row["difference"], ours - 0.45)
        categories = grouped(expected[label], "category")
        for key, theirs in (
            ("recall_user_shared_facts", "Recall User Shared Facts"),
            ("suggest_new_ideas", "Suggest New Ideas"),
        ):
            row = by_run_measure[label, CATEGORY_TITLES[key]]
            assert float(row["published"]) == gpt_4o[theirs]
            assert close(row["this run"], categories.get(key, math.nan))
            assert close(row["difference"], categories.get(key, math.nan) - gpt_4o[theirs])


def test_runs_of_other_splits_are_not_compared_with_128k(tmp_path: Path) -> None:
    data = tmp_path / "data32"
    generate_split(data, "32k", contexts=2, min_messages=8, max_messages=12, questions=6)
    inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data)},
        model=mock_model(lambda m: "<final_answer>(a)", "mockllm/model-a"),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    report = build_report(
        [tmp_path / "logs"], tmp_path / "out", name_overrides={"mockllm/model-a": "GPT-4o"}
    )
    assert any("32k split" in note and "not compared" in note for note in report.notes)
    assert not (tmp_path / "out" / "tables" / "published.csv").exists()


def test_a_limited_run_is_marked_a_subset_and_kept_out_of_the_published_comparison(
    logs: Logs, tmp_path: Path
) -> None:
    folder = tmp_path / "logs"
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    run(model, folder, logs.data, limit=10)
    shutil.copy(logs.locations["a_full"], folder / "a_full.eval")
    names = {"mockllm/model-a": "GPT-4o"}
    report = build_report([folder], tmp_path / "out", name_overrides=names)
    subset = [s.label for s in report.summaries if s.overall.n == 10]
    assert len(subset) == 1 and "subset 10/24" in subset[0]
    for name in ("overall", "runs", "categories", "sessions", "topics", "estimates"):
        labels = runs_in(tmp_path / "out", name)
        assert subset[0] in labels, name
        assert sum("subset" in label for label in labels) == 1, name
    assert report.headline == (
        "All 2 runs complete; not comparable with published numbers: subset (1 of 2)"
    )
    assert report.caveats == [
        f"subset, 1 of 2 runs: {subset[0]} (subset 10/24): {CAVEATS['subset']}"
    ]
    assert "--include-subsets" not in "\n".join(report.notes)  # the summary says it, once
    published = read_csv(tmp_path / "out", "published")
    assert {row["run"] for row in published} == {s.label for s in report.summaries} - set(subset)
    assert not any("subset" in figure.caption for figure in report.figures)

    command = ["report", str(folder), "--out", str(tmp_path / "all"), "--include-subsets"]
    assert main([*command, "--published-name", "mockllm/model-a=GPT-4o"]) == 0
    published = read_csv(tmp_path / "all", "published")
    assert subset[0] in {row["run"] for row in published}
    page = (tmp_path / "all" / "index.html").read_text(encoding="utf-8")
    assert f"{html.escape(subset[0])} next to the published 128k numbers of GPT-4o" in page


def test_a_run_on_other_data_is_marked_and_kept_out_of_the_published_comparison(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The task records whether its question file is the released one
    (`data_release`); an older log does not say (unknown)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    reason = "24 rows, the released questions_128k.csv has 2727"
    for key, release in (("a_full", f"not the released file: {reason}"), ("a_none", "released")):
        log = read_eval_log(logs.locations[key])
        log.eval.metadata = {**(log.eval.metadata or {}), "data_release": release}
        write_eval_log(log, str(folder / f"{key}.eval"))
    older = read_eval_log(logs.locations["b_epochs"])  # made before the task said
    older.eval.metadata = {
        k: v for k, v in (older.eval.metadata or {}).items() if k != "data_release"
    }
    write_eval_log(older, str(folder / "b_epochs.eval"))
    out = tmp_path / "out"
    report = build_report([folder], out, name_overrides={"mockllm/model-a": "GPT-4o"})
    labels = {Path(s.run.location).stem: s.label for s in report.summaries}
    other = labels["a_full"]
    assert other == "mockllm/model-a, full history, not released data"
    for name in ("overall", "runs", "categories", "gain", "sessions", "topics", "estimates"):
        assert other in runs_in(out, name), name
    data = {row["run"]: row["data"] for row in read_csv(out, "runs")}
    assert data == {
        other: "not released",
        labels["a_none"]: "released",
        labels["b_epochs"]: "unknown",
    }
    assert report.caveats == [
        f"not the released file, 1 of 3 runs: {other} ({reason}): "
        + CAVEATS["not the released file"]
    ]
    assert "--include-unreleased-data" in CAVEATS["not the released file"]
    assert "not the released" not in "\n".join(report.notes)  # the summary says it, once
    assert not (out / "tables" / "published.csv").exists()
    assert report.headline == (
        "All 3 runs complete; not comparable with published numbers: not the released file (1 of 3)"
    )

    command = ["report", str(folder), "--out", str(tmp_path / "all")]
    assert main([*command, "--published-name", "mockllm/model-a=GPT-4o",
                 "--include-unreleased-data"]) == 0  # fmt: skip
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == [report.headline, f"not comparable: {report.caveats[0]}"]
    assert {row["run"] for row in read_csv(tmp_path / "all", "published")} == {other}


def test_a_run_on_synthetic_data_is_labelled_so_and_never_compared(
    logs: Logs, tmp_path: Path
) -> None:
    """Generated data (`data_release: synthetic: ...`) is its own kind: labelled
    `synthetic data`, not `not released data`, and kept out of the published comparison
    even with `--include-unreleased-data` (which is about real but other data)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    checked = "questions_128k.csv: rows, bytes; shared_contexts_128k.jsonl: nothing to check"
    for key in ("a_full", "a_none"):
        synthetic = "synthetic: questions_128k.csv written by inspect-personamem try"
        grafted(
            logs.locations[key], folder / f"{key}.eval", data_release=synthetic, data_checked=""
        )
    b_epochs = folder / "b_epochs.eval"
    grafted(logs.locations["b_epochs"], b_epochs, data_release="released", data_checked=checked)
    out = tmp_path / "out"
    report = build_report(
        [folder], out, name_overrides={"mockllm/model-a": "GPT-4o"}, include_unreleased=True
    )
    runs = {Path(s.run.location).stem: s for s in report.summaries}
    on_synthetic = [runs[key] for key in ("a_full", "a_none")]
    for s in on_synthetic:
        assert (s.run.synthetic, s.run.unreleased) == (
            "questions_128k.csv written by inspect-personamem try",
            "",
        )
        assert s.label.endswith(", synthetic data")
    assert not runs["b_epochs"].label.endswith("data")
    for name in ("summary", "overall", "runs", "categories", "sessions", "estimates"):
        labels = {row["run"] for row in read_csv(out, name)}
        assert {s.label for s in on_synthetic} <= labels, name
    data = {row["run"]: (row["data"], row["data checked"]) for row in read_csv(out, "runs")}
    assert data == {
        on_synthetic[0].label: ("synthetic", ""),
        on_synthetic[1].label: ("synthetic", ""),
        runs["b_epochs"].label: ("released", checked),
    }
    assert not (out / "tables" / "published.csv").exists()
    assert report.headline == (
        "All 3 runs complete; not comparable with published numbers: synthetic data (2 of 3)"
    )
    names = "; ".join(s.label for s in report.summaries if s.run.synthetic)
    assert report.caveats == [
        f"synthetic data, 2 of 3 runs: {names} (questions_128k.csv written by inspect-personamem "
        "try): " + CAVEATS["synthetic data"]
    ]
