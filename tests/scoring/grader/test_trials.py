"""The grader's trials, built from the candidates: their parts, which trials a question
allows, the oracle's right verdict on each, and the real example the docs print."""

from __future__ import annotations

import csv
import re

import pytest
from support.helpers import REAL_QUESTIONS, ROOT, require

from inspect_personamem.data.options import LETTERS
from inspect_personamem.datasets.v1.options import parse_options
from inspect_personamem.offline.grading import right_verdict
from inspect_personamem.scoring.grader.prompt import GraderQuestion
from inspect_personamem.scoring.grader.trials import (
    Trial,
    built_trials,
    candidate_parts,
    sentences,
)

DOCS = ROOT / "docs" / "open-answers.md"
EXAMPLE = "f817828d-7bed-46a0-806b-2fd7cedfb7af"
"""The real 32k question docs/open-answers.md builds its trials for."""
ORDERS = ((0, 1, 2, 3), (3, 2, 1, 0))
SHARED = "Thanks for asking. Enjoy the trip!"
CANDIDATES = (
    "Thanks for asking. You love trains, so take the night train. Enjoy the trip!",
    "Thanks for asking. You dislike trains, so fly. Enjoy the trip!",
    "Thanks for asking. Drive. Enjoy the trip!",
    "Thanks for asking. You are vegan, so the ferry's food will suit you well. Enjoy the trip!",
)


def test_sentences_end_at_stops_closing_quotes_and_line_breaks() -> None:
    text = 'It works. Does it? Yes! She said "fine." Then\nnew line (see above.) End'
    assert sentences(text) == [
        "It works.", "Does it?", "Yes!", 'She said "fine."', "Then", "new line (see above.)",
        "End",
    ]  # fmt: skip
    assert sentences("e.g.this stays whole") == ["e.g.this stays whole"]


def test_the_parts_are_the_shared_sentences_and_each_candidate_s_own() -> None:
    parts = candidate_parts(CANDIDATES)
    assert parts.shared == ("Thanks for asking.", "Enjoy the trip!")
    assert parts.distinctive == (
        ("You love trains, so take the night train.",),
        ("You dislike trains, so fly.",),
        ("Drive.",),
        ("You are vegan, so the ferry's food will suit you well.",),
    )
    assert candidate_parts(["One. Two.", "Three. One."]).shared == ("One.",)


def kinds(trials: list[Trial]) -> dict[str, int]:
    found: dict[str, int] = {}
    for trial in trials:
        found[trial.kind] = found.get(trial.kind, 0) + 1
    return found


def test_a_question_with_shared_sentences_allows_every_trial() -> None:
    trials = built_trials(CANDIDATES, 0, ORDERS)
    assert kinds(trials) == {
        "identity_correct": 2, "identity_wrong": 6, "generic": 2, "mixed": 2, "length": 2,
    }  # fmt: skip
    assert {t.order for t in trials} == set(ORDERS)
    by_kind = {t.kind: t for t in trials}
    assert by_kind["generic"].reply == SHARED and by_kind["generic"].expected is None
    # the foil is the longest wrong candidate: the vegan one
    assert by_kind["mixed"].reply == (
        "You love trains, so take the night train. "
        "You are vegan, so the ferry's food will suit you well."
    )
    assert by_kind["mixed"].expected is None
    length = by_kind["length"]
    assert length.reply == CANDIDATES[0] and length.expected == 0
    assert length.candidates[0] == "You love trains, so take the night train."
    assert length.candidates[3] == f"{CANDIDATES[3]} {SHARED}"
    assert length.candidates[1:3] == CANDIDATES[1:3]
    assert max(length.candidates, key=len) != length.candidates[0]


def test_without_shared_sentences_only_identity_and_mixed_trials() -> None:
    candidates = ("You love trains.", "You dislike trains.", "Drive.", "You are vegan.")
    assert kinds(built_trials(candidates, 1, ORDERS)) == {
        "identity_correct": 2, "identity_wrong": 6, "mixed": 2,
    }  # fmt: skip


def test_no_length_trial_where_the_correct_one_stays_the_longest() -> None:
    """Shortened to its own sentences, the correct candidate is still longer than the
    foil with the shared sentences added: nothing is flipped."""
    own = "You love trains, " + "and the night train in particular, " * 5 + "so go by train."
    candidates = (f"Hi. {own}", "Hi. Fly.", "Hi. Drive.", "Hi. Walk.")
    assert "length" not in kinds(built_trials(candidates, 0, ORDERS))


def test_a_text_two_candidates_share_is_in_no_trial_that_tells_them_apart() -> None:
    """No identity trial for either (no verdict could tell them apart), and no mixed
    one where the foil is the correct candidate's twin."""
    candidates = ("Hi. Same.", "Hi. Same.", "Hi. No.", "Hi. Nay.")
    trials = built_trials(candidates, 0, ORDERS)
    assert {t.expected for t in trials if t.kind.startswith("identity")} == {2, 3}
    assert "mixed" not in kinds(trials)


def _right(trial: Trial) -> int | None:
    """The oracle's verdict on a trial, as the index of the sample's option."""
    shown = tuple(trial.candidates[i] for i in trial.order)
    named = right_verdict(GraderQuestion("Hello?", trial.reply, shown))
    return None if named is None else trial.order[named]


@pytest.mark.slow  # the real file
def test_the_oracle_gives_the_right_verdict_on_every_trial_of_the_real_file() -> None:
    with require(REAL_QUESTIONS).open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    for row in rows:
        options = parse_options(row["all_options"]).bodies()
        correct = LETTERS.index(row["correct_answer"].strip("() "))
        for trial in built_trials(options, correct, ORDERS):
            assert _right(trial) == trial.expected, (row["question_id"], trial.kind)


def example(row: dict[str, str]) -> str:
    """The trials of one question as the docs print them."""
    options = parse_options(row["all_options"]).bodies()
    correct = LETTERS.index(row["correct_answer"].strip("() "))
    parts = candidate_parts(options)
    by_kind = {t.kind: t for t in built_trials(options, correct, ORDERS[:1])}
    length = by_kind["length"]
    foil = next(
        i for i, text in enumerate(length.candidates) if text != options[i] and i != correct
    )
    lines = [f"shared: {' '.join(parts.shared)}", "own:"]
    lines += [f"  ({LETTERS[i]}) {' '.join(own)}" for i, own in enumerate(parts.distinctive)]
    lines += [
        f"correct: ({LETTERS[correct]}); foil, the longest wrong one: ({LETTERS[foil]})",
        f"generic reply (right: none): {by_kind['generic'].reply}",
        f"mixed reply (right: none): {by_kind['mixed'].reply}",
        f"length: the reply is ({LETTERS[correct]}) itself, right: ({LETTERS[correct]}), shown as",
        f"  ({LETTERS[correct]}) {length.candidates[correct]}",
        f"  ({LETTERS[foil]}) {length.candidates[foil]}",
    ]
    return "\n".join(lines)


def test_the_docs_build_the_trials_of_a_real_question() -> None:
    with require(REAL_QUESTIONS).open(encoding="utf-8", newline="") as file:
        [row] = [r for r in csv.DictReader(file) if r["question_id"] == EXAMPLE]
    found = re.search(
        r"<!-- trials example -->\n```text\n(.*?)\n```", DOCS.read_text("utf-8"), re.S
    )
    assert found is not None, "docs/open-answers.md shows the trials of a real question"
    assert found[1] == example(row)
    assert EXAMPLE in DOCS.read_text("utf-8")


@pytest.mark.parametrize("correct", range(4))
def test_the_oracle_gives_the_right_verdict_on_built_trials(correct: int) -> None:
    for trial in built_trials(CANDIDATES, correct, ORDERS):
        assert _right(trial) == trial.expected, trial.kind
