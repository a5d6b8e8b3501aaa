"""The `estimate` command (`cost/cli.py`): every version's selectors as options, which
of them a version takes and needs (one-line refusals naming the option), the options'
ranges, the three prices given together, and the printed table."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
from support.helpers import REAL_QUESTIONS, require

from inspect_personamem.cli import main
from inspect_personamem.cost.cli import check_dataset_options, selector_options, version_options
from inspect_personamem.errors import PersonaMemArgumentError


def options(dataset: str, **given: Any) -> argparse.Namespace:
    """The command's parsed selector and version options: `given`, the others not given."""
    flags = [*selector_options(), *version_options()]
    absent = {flag.removeprefix("--").replace("-", "_"): None for flag in flags}
    return argparse.Namespace(dataset=dataset, **(absent | given))


def test_estimate_command(small_split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["estimate", "--split", "32k", "--model", "openai/gpt-4.1", "--data-dir", str(small_split)]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "questions             24" in out
    assert "cacheable share" in out and "order=interleaved, 10 concurrent" in out
    shipped = "inspect_personamem/cost/model_costs.yaml, as of 2025-06"
    assert f"{shipped}; https://platform.openai.com" in out
    assert "cost without caching  $" in out and "cost with caching     $" in out


def test_estimate_command_wants_all_three_prices(small_split: Path) -> None:
    with pytest.raises(SystemExit, match="--price-input given without --price-cached-input"):
        main(
            [
                "estimate", "--split", "32k", "--model", "x/y", "--data-dir", str(small_split),
                "--price-input", "1",
            ]
        )  # fmt: skip


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--concurrency", "0", "argument --concurrency: 0 is too small: at least 1 needed"),
        ("--latency", "-5", "argument --latency: -5 is too small: more than 0 needed"),
        ("--latency", "0", "argument --latency: 0 is too small: more than 0 needed"),
        ("--cache-ttl", "-1", "argument --cache-ttl: -1 is too small: at least 0 needed"),
        ("--output-tokens", "many", "argument --output-tokens: 'many' is not an integer"),
        ("--price-input", "-1", "argument --price-input: -1 is too small: at least 0 needed"),
    ],
)
def test_estimate_rejects_options_out_of_range(
    small_split: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, message: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["estimate", "--split", "32k", "--model", "x/y", "--data-dir", str(small_split),
              option, value])  # fmt: skip
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_estimate_prints_data_errors_as_one_line_naming_its_own_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["estimate", "--split", "32k", "--model", "openai/gpt-4.1",
                 "--data-dir", str(tmp_path / "nowhere")])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == (
        f"inspect-personamem estimate: {tmp_path / 'nowhere'} (given by --data-dir) is not a "
        "folder. Put the file questions_32k.csv of bowen-upenn/PersonaMem-v1 in a folder and "
        "point --data-dir there.\n"
    )
    code = main(["estimate", "--split", "32k", "--model", "x/unknown", "--data-dir",
                 str(tmp_path), "--compare", str(tmp_path / "missing.eval")])  # fmt: skip
    assert code == 2
    assert "--compare " in capsys.readouterr().err


def test_the_estimate_says_how_its_question_file_differs_from_the_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real 32k file cut in half, alone in its folder (the estimate reads no
    history): priced, with the difference on the line after the split."""
    lines = require(REAL_QUESTIONS).read_bytes().split(b"\r\n")
    (tmp_path / "questions_32k.csv").write_bytes(b"\r\n".join(lines[:303]))
    code = main(["estimate", "--split", "32k", "--model", "openai/gpt-4.1",
                 "--data-dir", str(tmp_path)])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith(
        "data                  not the released file: 302 rows where the released "
        "questions_32k.csv has 589 (287 missing: a cut file?); cut after question "
    )
    assert out[2] == "questions             302"


def test_the_estimate_on_the_released_file_says_released(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "questions_32k.csv").write_bytes(require(REAL_QUESTIONS).read_bytes())
    main(["estimate", "--split", "32k", "--model", "openai/gpt-4.1", "--data-dir", str(tmp_path)])
    assert capsys.readouterr().out.splitlines()[1] == "data                  released"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--dataset", "v2"], "--dataset v2 needs --length (32k, 128k)"),
        (["--dataset", "v2", "--subset", "val"], "--dataset v2 needs --length (32k, 128k)"),
        ([], "--dataset v1 needs --split (32k, 128k, 1M)"),
        (
            ["--split", "32k", "--length", "32k"],
            "--length is an option of --dataset v2, not v1: PersonaMem (v1) has its length "
            "in --split",
        ),
        (
            ["--split", "32k", "--subset", "benchmark"],
            "--subset is an option of --dataset v2, not v1: PersonaMem (v1) is chosen by --split",
        ),
        (
            ["--dataset", "v2", "--length", "32k", "--split", "32k"],
            "--split is an option of --dataset v1, not v2: PersonaMem-v2 takes --subset and "
            "--length",
        ),
    ],
)
def test_wrong_combinations_are_one_line_errors(
    small_v2: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    code = main(["estimate", "--model", "x/y", "--data-dir", str(small_v2), *options])
    assert code == 2
    assert capsys.readouterr().err == f"inspect-personamem estimate: {message}\n"


def test_each_selector_is_an_option_of_the_versions_taking_it() -> None:
    found = {flag: [v.key for v in versions] for flag, versions in selector_options().items()}
    assert found == {"--split": ["v1"], "--subset": ["v2"], "--length": ["v2"], "--family": ["v3"]}
    own = {flag: [v.key for v in versions] for flag, (_, versions) in version_options().items()}
    assert own == {"--history": ["v3"], "--history-layout": ["v3"], "--judge": ["v3"]}


def test_a_versions_selectors_take_their_defaults_but_the_fixed_one() -> None:
    assert check_dataset_options(options("v1", split="128k")) == {"split": "128k"}
    assert check_dataset_options(options("v2", length="128k")) == {
        "subset": "benchmark",
        "length": "128k",
    }
    assert check_dataset_options(options("v2", subset="val", length="32k")) == {
        "subset": "val",
        "length": "32k",
    }
    # v3's family fixes no task of its own, so it is not required; its own options pass
    assert check_dataset_options(options("v3", history="memory")) == {
        "family": "all",
        "history": "memory",
        "history_layout": None,
        "judge": None,
    }
    with pytest.raises(PersonaMemArgumentError, match="^--history is an option of --dataset v3"):
        check_dataset_options(options("v1", split="32k", history="none"))


def test_a_value_the_chosen_version_does_not_take_is_refused_naming_its_choices() -> None:
    """argparse checks a value against every version's choices of that option; the
    chosen version's own are checked here."""
    with pytest.raises(PersonaMemArgumentError) as info:
        check_dataset_options(options("v2", subset="test", length="32k"))
    assert str(info.value) == "--subset test: --dataset v2 takes benchmark, train, val"
    with pytest.raises(PersonaMemArgumentError, match=r"^--length 1M: --dataset v2 takes 32k, "):
        check_dataset_options(options("v2", length="1M"))


def test_grader_options_are_refused_where_the_run_calls_no_grader(
    small_split: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["estimate", "--split", "32k", "--model", "openai/gpt-4.1", "--data-dir",
                 str(small_split), "--grader", "openai/gpt-5.5"])  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err == (
        "inspect-personamem estimate: --grader: a v1 run answering by choice calls no grader; "
        "leave it out\n"
    )
