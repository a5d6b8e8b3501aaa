"""What the report's tests share: real logs from mockllm runs over a synthetic split
(`conftest.py` makes them), and an independent recomputation of every number from the
full samples (`read_eval_log`, not the summaries the report reads)."""

from __future__ import annotations

import csv
import hashlib
import html
import json
import math
import re
import struct
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, Model
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_personamem.report import build_report
from inspect_personamem.report.accuracy import RunSummary, summarise
from inspect_personamem.report.build import Report
from inspect_personamem.report.read.runs import Run, setting_defaults
from inspect_personamem.report.read.samples import SampleResult
from support.helpers import DISPLAY, mock_model

ROOT = Path(__file__).resolve().parents[2]


TASK = "inspect_personamem/personamem_128k"


T_975 = {
    1: 12.706204736174698,
    2: 4.302652729749464,
    3: 3.182446305284263,
    4: 2.7764451051977987,
}
"""Student's t, 97.5% quantile, by degrees of freedom."""


CONTEXTS = 4


TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
"""matplotlib's first four colours, each run's in the order the runs started."""


QUESTIONS = 24


def hashed_answer(tag: str, messages: list[ChatMessage], salt: str = "") -> str:
    """A fixed reply per (model, prompt): a letter, or no letter at all (unparsed)."""
    digest = hashlib.sha256(f"{tag}|{len(messages)}|{messages[-1].text}|{salt}".encode())
    choice = digest.digest()[0] % 5
    return "I cannot tell." if choice == 4 else f"<final_answer>({'abcd'[choice]})"


@dataclass
class Logs:
    folder: Path
    data: Path
    locations: dict[str, str]


def run(model: Model, logs: Path, data: Path, **kwargs: Any) -> str:
    task_args = {"data_dir": str(data), **kwargs.pop("task_args", {})}
    [log] = inspect_eval(
        TASK, task_args=task_args, model=model, log_dir=str(logs), display=DISPLAY, **kwargs
    )
    return str(log.location)


@dataclass
class Expected:
    key: str
    label: str
    values: dict[str, float]  # question id -> mean over scored epochs
    unparsed: dict[str, float]
    first_unparsed: dict[str, bool]
    metadata: dict[str, dict[str, Any]]
    stored: dict[str, float] | None
    errors: int


def expected_from_log(location: str) -> Expected:
    log = read_eval_log(location)
    values: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, list[tuple[int, str]]] = defaultdict(list)
    metadata: dict[str, dict[str, Any]] = {}
    errors = 0
    for sample in log.samples or []:
        if sample.error is not None:
            errors += 1
            continue
        if not sample.scores:
            continue
        score = sample.scores["personamem_scorer"]
        values[str(sample.id)].append(1.0 if score.value == "C" else 0.0)
        statuses[str(sample.id)].append((sample.epoch, (score.metadata or {})["status"]))
        metadata[str(sample.id)] = sample.metadata
    stored = None
    if log.results is not None:
        stored = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    return Expected(
        key="",
        label="",
        values={k: sum(v) / len(v) for k, v in values.items()},
        unparsed={k: sum(s != "single" for _, s in v) / len(v) for k, v in statuses.items()},
        first_unparsed={k: min(v)[1] != "single" for k, v in statuses.items()},
        metadata=metadata,
        stored=stored,
        errors=errors,
    )


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def clustered_se(values: dict[str, float], clusters: dict[str, str]) -> float:
    """The clustered standard error, written out (Inspect's formula, with C/(C-1))."""
    mu = mean(list(values.values()))
    sums: dict[str, float] = defaultdict(float)
    for key, value in values.items():
        sums[clusters[key]] += value - mu
    c = len(sums)
    return math.sqrt(sum(s * s for s in sums.values()) * c / (c - 1)) / len(values)


def wilson(p: float, n: float, t: float) -> tuple[float, float]:
    """Wilson's score interval for a proportion `p` over `n` questions, critical value `t`."""
    centre = (p + t * t / (2 * n)) / (1 + t * t / n)
    half = t * math.sqrt(p * (1 - p) / n + t * t / (4 * n * n)) / (1 + t * t / n)
    return centre - half, centre + half


def clustered_wilson(values: dict[str, float], clusters: dict[str, str]) -> tuple[float, float]:
    """The cluster-adjusted Wilson interval, written out: over the effective number of
    questions p(1-p) / clustered variance (at most n; n where either is 0), with
    t(contexts - 1)."""
    p, n = mean(list(values.values())), len(values)
    variance = clustered_se(values, clusters) ** 2
    effective = min(p * (1 - p) / variance, n) if p * (1 - p) > 0 and variance > 0 else n
    return wilson(p, effective, T_975[len(set(clusters.values())) - 1])


def grouped(expected: Expected, field: str) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for key, value in expected.values.items():
        groups[str(expected.metadata[key][field])].append(value)
    return {group: mean(values) for group, values in groups.items()}


def read_csv(report_dir: Path, name: str) -> list[dict[str, str]]:
    with (report_dir / "tables" / f"{name}.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def runs_in(report_dir: Path, name: str) -> set[str]:
    """The runs a table shows: its `run` column, or, for a group of more values than
    `tables.TRANSPOSE_AT` (a row per value), its columns after the first."""
    with (report_dir / "tables" / f"{name}.csv").open(encoding="utf-8") as file:
        header, *rows = list(csv.reader(file))
    if header[0] == "run":
        return {row[0] for row in rows}
    return set(header[1:])


def values_in(report_dir: Path, name: str) -> set[str]:
    """The values of its group a table shows: its columns after `run`, or, for a group
    of more values than `tables.TRANSPOSE_AT` (a row per value), its first column."""
    with (report_dir / "tables" / f"{name}.csv").open(encoding="utf-8") as file:
        header, *rows = list(csv.reader(file))
    if header[0] == "run":
        return set(header[1:])
    return {row[0] for row in rows}


def close(cell: str, value: float) -> bool:
    if math.isnan(value):
        return cell == ""
    return abs(float(cell) - value) < 1e-9


def expected_by_label(logs: Logs, report_dir: Path) -> dict[str, Expected]:
    """Join the report's rows to the logs through the log time shown in each row, and
    the errored samples (two runs of one model and setting can start in one second)."""
    rows = read_csv(report_dir, "overall")
    runs = {row["run"]: row for row in read_csv(report_dir, "runs")}
    by_label: dict[str, Expected] = {}
    for key, location in logs.locations.items():
        if key == "other":
            continue
        header = read_eval_log(location, header_only=True)
        no_history = header.eval.task_args["history"] == "none"
        expected = expected_from_log(location)
        matching = [
            row
            for row in rows
            if runs[row["run"]]["model"] == header.eval.model
            and ("history=none" in runs[row["run"]]["settings"]) == no_history
            and runs[row["run"]]["started (UTC)"] == header.eval.created[:19].replace("T", " ")
            and row["status"] == header.status
            and int(row["errored samples"]) == expected.errors
        ]
        assert len(matching) == 1, (key, matching)
        expected.key, expected.label = key, matching[0]["run"]
        by_label[expected.label] = expected
    return by_label


def v1_groups(category: str) -> dict[str, str]:
    """A v1 question's groups: `category`, one topic, one session elapsed (bin `1`)."""
    return {
        "category": category,
        "topic": "t",
        "distance_to_ref_in_blocks": "1",
        "distance_bin": "1",
    }


def results(*contexts: list[float]) -> list[SampleResult]:
    """Questions with these scores, one list per shared context."""
    return [
        SampleResult(f"{c}-{i}", v1_groups("c"), str(c), value, {"single": 1.0}, 1, "single")
        for c, values in enumerate(contexts)
        for i, value in enumerate(values)
    ]


def a_run(samples: Sequence[SampleResult] = (), **changes: Any) -> Run:
    """A complete v1 run of `mockllm/model-a` on the released 128k split, written by hand
    (no log): every setting at its default but those in `changes["settings"]`, and the
    other fields `changes` names."""
    settings = setting_defaults("v1") | changes.pop("settings", {})
    run = Run(
        location="a.eval",
        eval_id="eval-a",
        task="inspect_personamem/personamem_128k",
        version="3",
        benchmark="v1",
        split="128k",
        selected={"split": "128k"},
        model="mockllm/model-a",
        model_args={},
        base_url=None,
        generate_config={},
        settings=settings,
        created=datetime(2025, 1, 1, tzinfo=timezone.utc),
        status="success",
        epochs=1,
        reducer="mean",
        planned=len(samples),
        dataset_size=len(samples),
        samples=tuple(samples),
        errors=0,
        unanswered=0,
        limits={},
        stored_metrics=None,
        stored_ids=None,
        data_release="released",
        data_checked=None,
        data_source=None,
    )
    return replace(run, **changes)


def a_summary(label: str, samples: Sequence[SampleResult], **changes: Any) -> RunSummary:
    """`a_run(samples, **changes)` summarised under `label`."""
    return summarise(a_run(samples, **changes), label)


def by_measure(rows: list[dict[str, str]], key: str) -> dict[tuple[str, str], dict[str, str]]:
    """Difference rows by (`key` column, measure)."""
    return {(row[key], row["measure"]): row for row in rows}


def published_gpt_4o() -> dict[str, float]:
    path = ROOT / "src/inspect_personamem/datasets/v1/paper/published_128k_by_question_type.csv"
    with path.open(encoding="utf-8") as file:
        return {row["Question Type \\ Model"]: float(row["GPT-4o"]) for row in csv.DictReader(file)}


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def markdown_table_cells(line: str) -> list[str]:
    """The cells of a Markdown table line, split at the `|`s that are not escaped."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def cancelled_log(logs: Logs, folder: Path) -> EvalLog:
    """model-a's complete log (24 questions scored), as Ctrl-C leaves one when more
    samples reached the log than Inspect's metrics: status `cancelled`, the results and
    reductions Inspect computed over the first 10 questions (a `--limit 10` run)."""
    model = mock_model(lambda messages: hashed_answer("a", messages), "mockllm/model-a")
    limited = read_eval_log(run(model, folder / "limited", logs.data, limit=10))
    log = read_eval_log(logs.locations["a_full"])
    log.status = "cancelled"
    log.results, log.reductions = limited.results, limited.reductions
    return log


CTRL_C = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from support.helpers import mock_model
from inspect_ai import eval

calls = 0

def reply(messages):
    global calls
    calls += 1
    if calls == 9:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C
    return "<final_answer>(a)"

eval("inspect_personamem/personamem_128k", task_args={{"data_dir": {data!r}}},
     model=mock_model(reply, "mockllm/model-a"), log_dir={logs!r}, display="none",
     max_samples=2, max_connections=2)
"""


@dataclass(frozen=True)
class MethodLogs:
    """Four methods of one model in one folder: full and no history, RAG, memory."""

    folder: Path
    rag: str
    memory: str


@dataclass(frozen=True)
class EvidenceLogs:
    """One model's runs in one folder: the full history, the upper bound
    (`history=evidence`), BM25 retrieval and a memory system that sleeps a known time
    per call (`support.memories.SleepingMemory`); and, in a folder of its own, a run
    searching the history through tools (`history=tools`, `searching_answer`)."""

    folder: Path
    full: str
    evidence: str
    rag: str
    memory: str
    tools: str


def searching_answer(
    messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice
) -> str | list[tuple[str, Any]]:
    """model-a with the history's tools: it searches with the question's first
    paragraph, then answers as `hashed_answer` does."""
    if tool_choice == "none" or any(message.role == "tool" for message in messages):
        return hashed_answer("a", messages)
    return [("search_history", {"query": messages[-1].text.split("\n\n", 1)[0]})]


def methods_report(method_logs: MethodLogs, out: Path) -> Report:
    return build_report([method_logs.folder], out, name_overrides={"mockllm/model-a": "GPT-4o"})


def bar_colours(svg: Path) -> list[str]:
    """The fill colours of a figure's bars, in the order they are drawn (series by series)."""
    fills = re.findall(r"fill: (#[0-9a-f]{6})", svg.read_text(encoding="utf-8"))
    return [c for c in dict.fromkeys(fills) if c != "#ffffff"]


def counting_model(counts: list[int]) -> Model:
    """model-a's answers, each call's messages counted into `counts`: the stand-in's
    usage is one input token a message and one output token a reply."""

    def reply(messages: list[ChatMessage]) -> str:
        counts.append(len(messages))
        return hashed_answer("a", messages)

    return mock_model(reply, "mockllm/model-a")


def grafted(location: str, path: Path, **metadata: str) -> None:
    """A copy of the log at `location` written to `path`, with `metadata` in its task
    metadata (`data_release`, `data_checked`: what a newer task records)."""
    log = read_eval_log(location)
    log.eval.metadata = {**(log.eval.metadata or {}), **metadata}
    write_eval_log(log, str(path))


MEASURE = r"""<script>
window.addEventListener("load", () => {
  const broken = [];
  for (const cell of document.querySelectorAll("td, th")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  const scrolled = [...document.querySelectorAll("section")]
    .filter((s) => s.querySelector(".scroll").scrollWidth > s.querySelector(".scroll").clientWidth)
    .map((s) => s.id);
  const firstScreen = [...document.querySelectorAll("#summary td")]
    .filter((cell) => cell.getBoundingClientRect().bottom <= 800)
    .map((cell) => cell.textContent);
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify({
    broken, scrolled, firstScreen, page: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  });
  document.body.appendChild(out);
});
</script>"""
"""Run in the page once it is laid out: every word of a table cell broken across lines,
the tables that scroll in their box, the summary's cells on the first screen (the top
800 px), and the page's width against the window's."""


def measured(page: Path, chromium: str, width: int, folder: Path) -> dict[str, Any]:
    """`MEASURE`'s findings for `page` laid out in a window `width` px wide."""
    copy = folder / f"measure_{width}.html"
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"))
    dom = subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            f"--user-data-dir={folder / 'profile'}", "--hide-scrollbars",
            f"--window-size={width},2000", "--virtual-time-budget=10000", "--dump-dom",
            copy.as_uri(),
        ],  # fmt: skip
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stderr[-2000:]
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result


def assert_labels_inside(figure: Any) -> None:
    """Each tick label drawn (inside its axis's limits) and each legend entry of a
    matplotlib `figure` lies inside it, laid out as saving lays it out."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)  # the canvas a PNG is drawn on
    figure.draw_without_rendering()  # lays it out as saving did
    frame = figure.bbox
    texts = [t for legend in figure.legends for t in legend.get_texts()]
    for a in figure.axes:  # the ticks drawn: those inside the axis's limits
        (x0, x1), (y0, y1) = sorted(a.get_xlim()), sorted(a.get_ylim())
        texts += [t for t in a.get_xticklabels() if x0 <= t.get_position()[0] <= x1]
        texts += [t for t in a.get_yticklabels() if y0 <= t.get_position()[1] <= y1]
    for text in texts:
        box = text.get_window_extent()
        inside = box.x0 >= frame.x0 - 1 and box.x1 <= frame.x1 + 1
        assert inside and box.y0 >= frame.y0 - 1 and box.y1 <= frame.y1 + 1, text
