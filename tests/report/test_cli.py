"""The `report` and `card` commands (`report/cli.py`): `--published-name MODEL=NAME`
read and checked, and what the card command prints. What the report holds is the other
tests'; bad input refused by the command: test_build.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.reports import Logs

from inspect_personamem.cli import main
from inspect_personamem.report.cli import parse_name_overrides
from inspect_personamem.report.errors import ReportError


def test_published_names_are_model_name_pairs_of_published_models() -> None:
    """An empty NAME turns a mapping off; a name no version publishes, or an item
    without `=` or a model, is refused naming it."""
    assert parse_name_overrides(["mockllm/a=GPT-4o", "openai/gpt-4o="]) == {
        "mockllm/a": "GPT-4o",
        "openai/gpt-4o": "",
    }
    assert parse_name_overrides([]) == {}
    for item, error in (
        ("GPT-4o", "'GPT-4o': expected MODEL=NAME"),
        ("=GPT-4o", "'=GPT-4o': expected MODEL=NAME"),
        ("a=GPT-9", "'a=GPT-9': 'GPT-9' is not a published model; choose one of "),
    ):
        with pytest.raises(ReportError, match=error):
            parse_name_overrides([item])


def test_the_card_command_refuses_an_incomplete_log_and_prints_each_card_made(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    interrupted = logs.locations["b_interrupted"]
    assert main(["card", interrupted, "--out", str(tmp_path)]) == 2
    assert "Pass --allow-incomplete to make its card anyway" in capsys.readouterr().err
    assert main(["card", interrupted, "--out", str(tmp_path), "--allow-incomplete"]) == 0
    out = capsys.readouterr().out.splitlines()
    [card] = tmp_path.glob("*.json")
    assert [line for line in out if not line.startswith("note: ")] == [
        f"card: {card} and {card.with_suffix('.md').name}"
    ]
    assert any("status error" in line for line in out)
