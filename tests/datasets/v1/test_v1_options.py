"""PersonaMem's answer options (`datasets/v1/options.py`): both serialisations of the
`all_options` cell parsed and written back byte for byte, malformed cells refused
saying what is wrong, and reordered options re-lettered in the row's own style."""

from __future__ import annotations

import csv

import pytest
from support.helpers import EXCERPT, REAL_QUESTIONS, require

from inspect_personamem.datasets.v1.options import OptionsFormatError, parse_options


def test_both_serialisations_round_trip_on_the_real_file() -> None:
    with require(REAL_QUESTIONS).open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    styles = [parse_options(row["all_options"]).style for row in rows]
    assert styles.count("json") == 286 and styles.count("python") == 303
    for row in rows:
        assert parse_options(row["all_options"]).render() == row["all_options"]


def test_excerpt_has_both_styles() -> None:
    with EXCERPT.open(newline="", encoding="utf-8") as file:
        styles = {parse_options(row["all_options"]).style for row in csv.DictReader(file)}
    assert styles == {"json", "python"}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("['(a) x', '(b) y', '(c) z'", "neither JSON nor a Python literal"),
        ('"(a) x"', "not a list of strings"),
        ("['(a) x', '(b) y', '(c) z']", "expected 4 options, found 3"),
        ("['(a) x', '(b) y', '(c) z', '(d) w', '(e) v']", "expected 4 options, found 5"),
        ("['(a) x', '(c) y', '(b) z', '(d) w']", "option b does not begin with '(b) '"),
        ("[1, 2, 3, 4]", "not a list of strings"),
    ],
)
def test_bad_options_are_rejected(raw: str, message: str) -> None:
    with pytest.raises(OptionsFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_options(raw)


def test_permutation_reletters_and_keeps_style() -> None:
    options = parse_options("['(a) alpha', \"(b) it's beta\", '(c) gamma', '(d) delta']")
    moved = options.permuted((2, 0, 3, 1))
    assert moved.texts == ("(a) gamma", "(b) alpha", "(c) delta", "(d) it's beta")
    assert moved.render() == "['(a) gamma', '(b) alpha', '(c) delta', \"(d) it's beta\"]"
    as_json = parse_options('["(a) alpha", "(b) beta", "(c) gamma", "(d) delta"]')
    assert as_json.permuted((1, 0, 2, 3)).render() == (
        '["(a) beta", "(b) alpha", "(c) gamma", "(d) delta"]'
    )


def test_bodies_drop_the_letter_prefix_and_json_keeps_non_ascii() -> None:
    options = parse_options('["(a) café", "(b) (b) twice", "(c) ", "(d) d"]')
    assert options.style == "json"
    assert options.bodies() == ("café", "(b) twice", "", "d")
    assert options.render() == '["(a) café", "(b) (b) twice", "(c) ", "(d) d"]'
