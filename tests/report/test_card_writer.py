"""Cards written (`report/card_writer.py`): one card per model and setting (of several
logs of one, the latest complete), a note for each log left without one, file names
from the labels, and the Markdown table's words for an estimate and a reference run.
What a card holds is test_card.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.reports import Logs

from inspect_personamem.report.card import THIS_RUN
from inspect_personamem.report.card_writer import _beside, _interval, file_stem, write_cards
from inspect_personamem.report.errors import ReportError


def test_a_card_per_model_and_setting_and_a_note_for_each_log_left_without_one(
    logs: Logs, tmp_path: Path
) -> None:
    """The five runs of the report's logs are three kinds: model-a with and without the
    history (its errored run a second log of the first) and model-b with the history
    (its interrupted run a second log): the complete log of each is carded."""
    cards = write_cards([logs.folder], tmp_path, allow_incomplete=True)
    carded = {json.loads(path.read_text(encoding="utf-8"))["log"] for path in cards.written}
    assert carded == {logs.locations[key] for key in ("a_full", "a_none", "b_epochs")}
    for key in ("a_errors", "b_interrupted"):
        assert f"{logs.locations[key]}: no card (no question scored, or a later complete " in (
            "\n".join(cards.notes)
        )
    assert any("other_task" in note for note in cards.notes)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        name for path in cards.written for name in (path.name, path.with_suffix(".md").name)
    )
    for path in cards.written:
        made = json.loads(path.read_text(encoding="utf-8"))
        assert path.stem == file_stem("v1", made["label"])
        table = path.with_suffix(".md").read_text(encoding="utf-8")
        assert table.startswith(f"## Results card: {made['label']}\n")


def test_no_logs_of_personamem_no_cards(logs: Logs, tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no PersonaMem runs in"):
        write_cards([logs.locations["other"]], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_cards_file_name_is_its_version_and_label_lower_case_and_dashed() -> None:
    assert file_stem("v1", "openai/gpt-4.1, full history") == "v1-openai-gpt-4.1-full-history"
    assert file_stem("v2", "Model (decay=0.1), subset 10/589") == (
        "v2-model-decay-0.1-subset-10-589"
    )


def test_an_estimate_and_a_reference_run_in_words() -> None:
    estimate = {"accuracy": 0.5891, "ci95_low": 0.5412, "ci95_high": 0.6364, "questions": 589}
    assert _interval(estimate) == "0.589 [0.541, 0.636], 589 questions"
    assert _interval({**estimate, "ci95_low": None}) == "0.589, 589 questions"
    assert _interval({**estimate, "accuracy": None}) == "–"
    difference = {"difference": 0.1234, "ci95_low": 0.05, "ci95_high": 0.2, "questions": 24}
    reference = {"label": "no history", "accuracy": estimate, "difference": difference}
    assert _beside(reference, "") == (
        "no history: 0.589 [0.541, 0.636], 589 questions; difference +0.123 [+0.050, +0.200] "
        "over 24 questions"
    )
    nothing = {**reference, "difference": {**difference, "difference": None}}
    assert _beside(nothing, "").endswith("; no difference (no question both scored)")
    assert _beside(THIS_RUN, "it is the floor") == "this run: it is the floor"
    assert _beside(None, "") == "none among the logs"
