"""Results cards (`report/card.py`, `inspect-personamem card`): one JSON file and one
Markdown table per model and setting, held by the checked-in schema; their numbers
recomputed here from the full samples; a log that is not complete or not on the
released data refused in one line unless allowed, and the card saying so."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelCost
from support.reports import Logs, expected_from_log, mean

from inspect_personamem.cli import main
from inspect_personamem.cost.prices import PriceTable
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.prompt import INSTRUCTION
from inspect_personamem.datasets.v1.spec import PERSONAMEM
from inspect_personamem.report.card import SCHEMA, SCHEMA_FILE
from inspect_personamem.report.card_writer import write_cards
from inspect_personamem.report.errors import ReportError
from inspect_personamem.scoring.grader.prompt import GRADER_PROMPT

ORACLE = "personamem/oracle"
PRICES = PriceTable(
    {ORACLE: ModelCost(input=2.0, input_cache_read=0.5, input_cache_write=2.0, output=8.0)},
    "test prices",
    False,
)
"""A price for the oracle, whose usage is an estimate of four characters a token."""


@dataclass(frozen=True)
class CardLogs:
    data: Path
    folder: Path
    locations: dict[str, str]


def _run(data: Path, folder: Path, model: str, model_args: dict[str, Any], **task_args: Any) -> str:
    roles = {"grader": ORACLE} if task_args.get("answer") == "open" else None
    [log] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(data), **task_args},
        model=model,
        model_args=model_args,
        model_roles=roles,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return str(log.location)


@pytest.fixture(scope="module")
def card_logs(tmp_path_factory: pytest.TempPathFactory) -> CardLogs:
    """The oracle (right with probability 0.7) with and without the history, answering
    openly graded by the oracle bound to the grader role, and the longest-option floor, on
    a synthetic 32k split standing in for the release (the folder's conftest)."""
    root = tmp_path_factory.mktemp("card")
    data, folder = root / "data", root / "logs"
    generate_split(data, "32k", contexts=4, min_messages=20, max_messages=30, questions=24)
    oracle = {"questions": str(data / "questions_32k.csv"), "accuracy": 0.7}
    return CardLogs(
        data,
        folder,
        {
            "full": _run(data, folder, ORACLE, oracle),
            "none": _run(data, folder, ORACLE, oracle, history="none"),
            "open": _run(data, folder, ORACLE, oracle, answer="open", grader_calibration=4),
            "floor": _run(data, folder, "personamem/floor", {"rule": "longest"}),
        },
    )


def _cards(folder: Path) -> dict[str, dict[str, Any]]:
    """The cards in `folder`, each by its log's file name, checked against the schema."""
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
    cards = {}
    for path in sorted(folder.glob("*.json")):
        made = json.loads(path.read_text(encoding="utf-8"))
        validator.validate(made)
        assert (
            path.with_suffix(".md")
            .read_text(encoding="utf-8")
            .startswith(f"## Results card: {made['label']}\n")
        )
        cards[Path(made["log"]).name] = made
    return cards


def _paired(a: str, b: str) -> float:
    """The mean over the questions both runs scored of a's score less b's."""
    ours, theirs = expected_from_log(a).values, expected_from_log(b).values
    return mean([ours[q] - theirs[q] for q in ours if q in theirs])


def test_a_card_per_model_and_setting_holds_its_schema_and_the_reports_numbers(
    card_logs: CardLogs, tmp_path: Path
) -> None:
    written = write_cards([card_logs.folder], tmp_path, prices=PRICES)
    assert len(written.written) == 4 and not written.notes
    cards = _cards(tmp_path)
    name = {key: Path(location).name for key, location in card_logs.locations.items()}
    full = cards[name["full"]]
    expected = expected_from_log(card_logs.locations["full"])
    assert full["schema"] == SCHEMA == json.loads(SCHEMA_FILE.read_text())["$id"]
    assert full["overall"]["accuracy"] == pytest.approx(mean(list(expected.values.values())))
    assert full["questions"] == {
        "in_split": 24, "planned": 24, "scored": 24, "rows": 24, "errored": 0, "unanswered": 0,
        "epochs": 1,
    }  # fmt: skip
    assert full["model"] == {
        "name": ORACLE,
        "args": {"accuracy": "0.7", "questions": str(card_logs.data / "questions_32k.csv")},
        "base_url": None,
        "generate_config": {},
    }
    assert full["prompts"] == {
        "datasets/v1/prompt.py:INSTRUCTION": hashlib.sha256(INSTRUCTION.encode()).hexdigest()
    }
    assert full["facts_from"] == "the log"
    assert full["dataset"]["repository"] == PERSONAMEM.repo_id
    # a v1 log records no licence: the release's, in the card and its table
    assert (full["dataset"]["license"], full["dataset"]["license_terms"]) == ("MIT", "MIT")
    tables = [path.read_text(encoding="utf-8") for path in tmp_path.glob("*.md")]
    assert len(tables) == 4 and all("| data license | MIT |" in t for t in tables)
    assert full["dataset"]["release"] == "released"  # the stand-in for the release
    assert full["dataset"]["released_files"]["questions_32k.csv"]["sha256"] == (
        PERSONAMEM.released["32k"].sha256
    )
    assert [e["reported"] for e in full["dataset"]["errata"]] == [
        "the released file (no issue)", "the released file (no issue)",
    ]  # fmt: skip
    no_history, floor = full["no_history"], full["floor"]
    assert Path(no_history["log"]).name == name["none"]
    assert no_history["difference"]["difference"] == pytest.approx(
        _paired(card_logs.locations["full"], card_logs.locations["none"])
    )
    assert Path(floor["log"]).name == name["floor"]
    assert floor["difference"]["difference"] == pytest.approx(
        _paired(card_logs.locations["full"], card_logs.locations["floor"])
    )
    assert cards[name["none"]]["no_history"] == "this run"  # it is the baseline
    assert (
        cards[name["floor"]]["floor"] == "this run" and cards[name["floor"]]["cost"]["usd"] is None
    )
    # dollars at the given prices, from the tokens Inspect logged per sample
    log = read_eval_log(card_logs.locations["full"])
    usages = [u for s in log.samples or [] for u in s.model_usage.values()]
    dollars = sum(u.input_tokens * 2.0 + u.output_tokens * 8.0 for u in usages) / 1e6
    assert full["cost"]["usd"] == pytest.approx(dollars)
    assert full["cost"]["prices"] == "computed (test prices)"
    assert full["exceptions"] == {"incomplete": [], "unreleased": ""}


def test_an_open_runs_card_names_its_grader_its_prompt_and_trials(
    card_logs: CardLogs, tmp_path: Path
) -> None:
    open_log, floor = card_logs.locations["open"], card_logs.locations["floor"]
    write_cards([open_log, floor], tmp_path)
    made = _cards(tmp_path)[Path(open_log).name]
    grader = made["grader"]
    assert (grader["model"], grader["args"], grader["self_graded"]) == (ORACLE, {}, False)
    assert not grader["judged"]
    assert grader["calibration"]["questions"] == 4
    identity = grader["calibration"]["trials"]["identity_correct"]
    assert identity["trials"] > 0 and identity["right"] == identity["trials"]
    assert "grader_identity" in grader["stored_metrics"]
    assert made["prompts"] == {
        "scoring/grader/prompt.py:GRADER_PROMPT": hashlib.sha256(GRADER_PROMPT.encode()).hexdigest()
    }
    assert made["no_history"] is None and made["floor"] is not None


def test_a_card_gives_the_logs_digests_and_says_where_a_log_predates_them(
    card_logs: CardLogs, tmp_path: Path
) -> None:
    """The prompts' digests are the ones the task wrote into the log (`run/facts.py`),
    whatever the installed package sends now; a log made before tasks wrote them is
    described by the installed package, and its card says so."""
    log = read_eval_log(card_logs.locations["full"])
    assert log.eval.metadata is not None
    earlier = {"datasets/v1/prompt.py:INSTRUCTION": "0" * 64}  # a text since changed
    log.eval.metadata["facts"] = {**log.eval.metadata["facts"], "prompts": earlier}
    write_eval_log(log, str(tmp_path / "logged.eval"))
    del log.eval.metadata["facts"]
    write_eval_log(log, str(tmp_path / "older.eval"))
    write_cards([tmp_path / "logged.eval"], tmp_path / "logged")
    [logged] = _cards(tmp_path / "logged").values()
    assert logged["prompts"] == earlier and logged["facts_from"] == "the log"
    older = write_cards([tmp_path / "older.eval"], tmp_path / "older")
    [made] = _cards(tmp_path / "older").values()
    assert made["prompts"] == {
        "datasets/v1/prompt.py:INSTRUCTION": hashlib.sha256(INSTRUCTION.encode()).hexdigest()
    }
    assert made["facts_from"].startswith("described by the installed package, version ")
    assert any(note.endswith(made["facts_from"]) for note in older.notes)
    [table] = (tmp_path / "older").glob("*.md")
    assert f"| prompts and scoring | {made['facts_from']} |" in table.read_text(encoding="utf-8")


def test_a_floor_run_without_history_is_its_own_no_history_run_and_floor(
    card_logs: CardLogs, tmp_path: Path
) -> None:
    """`personamem/floor` with `history=none` is the run both references would be: its
    card says so, not that the logs hold none."""
    floor = _run(
        card_logs.data, tmp_path / "logs", "personamem/floor", {"rule": "longest"}, history="none"
    )
    write_cards([floor], tmp_path / "cards", prices=PRICES)
    [made] = _cards(tmp_path / "cards").values()
    assert made["no_history"] == made["floor"] == "this run"
    [table] = (tmp_path / "cards").glob("*.md")
    rows = table.read_text(encoding="utf-8")
    assert "| beside no history | this run: it has no history |" in rows
    assert "| beside the model-free floor | this run: it is the floor |" in rows
    assert "none among the logs" not in rows


@pytest.mark.parametrize(
    ("metadata", "why"),
    [
        (
            {"data_release": "synthetic: questions_32k.csv written by a generator"},
            "synthetic: questions_32k.csv written by a generator",
        ),
        ({}, "the log does not record whether its data were the released files"),
    ],
    ids=["synthetic", "not recorded"],
)
def test_a_log_not_on_the_released_data_is_refused_in_one_line_unless_allowed(
    card_logs: CardLogs, tmp_path: Path, metadata: dict[str, str], why: str
) -> None:
    log = read_eval_log(card_logs.locations["full"])
    log.eval.metadata = {
        k: v for k, v in (log.eval.metadata or {}).items() if k != "data_release"
    } | metadata
    path = tmp_path / "other.json"
    write_eval_log(log, str(path))
    with pytest.raises(ReportError) as refused:
        write_cards([path], tmp_path / "cards")
    assert str(refused.value) == (
        f"no card for {path} (not on the released data: {why}). Pass --allow-unreleased to "
        "make its card anyway (the card says so)"
    )
    write_cards([path], tmp_path / "cards", allow_unreleased=True)
    [made] = _cards(tmp_path / "cards").values()
    assert made["exceptions"] == {"incomplete": [], "unreleased": why}
    assert made["dataset"]["errata"] == []  # the released file's defects, not this file's
    [table] = (tmp_path / "cards").glob("*.md")
    assert "known defect" not in table.read_text(encoding="utf-8")


def test_an_incomplete_log_is_refused_in_one_line_unless_allowed(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two of the report tests' 128k runs: errored samples, and a run that stopped."""
    errors, stopped = logs.locations["a_errors"], logs.locations["b_interrupted"]
    assert main(["card", errors, stopped, "--out", str(tmp_path)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"inspect-personamem card: no card for {errors} (not complete: ")
    assert f"; {stopped} (not complete: status error, " in line
    assert line.endswith("Pass --allow-incomplete to make its card anyway (the card says so)")
    assert not list(tmp_path.iterdir())
    assert main(["card", errors, "--out", str(tmp_path), "--allow-incomplete"]) == 0
    [made] = _cards(tmp_path).values()
    errored = made["questions"]["errored"]
    assert errored and made["exceptions"]["incomplete"] == [
        f"{24 - errored} of 24 scored", f"{errored} errored",
    ]  # fmt: skip
    released = made["dataset"]["released_files"]
    assert (released["questions_128k.csv"]["rows"], released["questions_128k.csv"]["bytes"]) == (
        2727, 5_259_005,
    )  # fmt: skip
    assert released["shared_contexts_128k.jsonl"]["rows"] == 110
    assert [e["reported"] for e in made["dataset"]["errata"]] == [
        "authors' issue #34", "authors' issue #41", "a third party's inspection (no issue)",
    ]  # fmt: skip


def test_a_subset_is_not_complete_for_a_card(card_logs: CardLogs, tmp_path: Path) -> None:
    oracle = {"questions": str(card_logs.data / "questions_32k.csv"), "accuracy": 0.7}
    [log] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args={"data_dir": str(card_logs.data)},
        model=ORACLE,
        model_args=oracle,
        limit=5,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    with pytest.raises(ReportError, match=r"\(not complete: subset 5/24\)"):
        write_cards([tmp_path / "logs"], tmp_path / "cards")


def test_a_former_repository_name_in_an_old_log_is_carded_by_its_current_name(
    card_logs: CardLogs, tmp_path: Path
) -> None:
    old = tmp_path / "old.eval"
    log = read_eval_log(card_logs.locations["full"])
    log.eval.task_args["repo_id"] = "bowen-upenn/PersonaMem"
    log.eval.metadata = {
        **(log.eval.metadata or {}),
        "data_source": "hf://datasets/bowen-upenn/PersonaMem@x",
    }
    write_eval_log(log, str(old))
    write_cards([old], tmp_path / "cards")
    [made] = _cards(tmp_path / "cards").values()
    assert made["dataset"]["repository"] == PERSONAMEM.repo_id
    assert made["dataset"]["source"] == "hf://datasets/bowen-upenn/PersonaMem@x"
