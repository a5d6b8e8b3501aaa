"""PersonaMem-v2's multiple-choice scorer: the authors' rule, what it read logged."""

from __future__ import annotations

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_personamem.data.options import shown_options
from inspect_personamem.datasets.v2.extraction import ANSWER_PATTERNS, read_answer
from inspect_personamem.scoring.metrics import unparsed
from inspect_personamem.scoring.scorer import Scoring, answered


@scorer(metrics=[accuracy(), stderr(), unparsed()])
@answered
def v2_choice_scorer() -> Scoring:
    """Correct iff the option shown under the letter the authors' patterns read is the
    correct answer. A reply with no letter, or a letter no option has, is incorrect
    (`status` `none` or `not_an_option`; `single` where an option's letter was read).
    A question the model never replied to is not scored."""

    async def score(state: TaskState, target: Target) -> Score:
        options = shown_options(state)
        reading = read_answer(state.output.completion, len(options))
        chosen = None
        if reading.letter is not None and reading.status == "option":
            chosen = options[ord(reading.letter) - ord("A")]
        correct = chosen is not None and chosen == state.metadata["correct_answer"]
        return Score(
            value=CORRECT if correct else INCORRECT,
            answer=reading.letter or "",
            explanation=(
                f"read {reading.letter} by pattern {ANSWER_PATTERNS[reading.pattern]!r}"
                if reading.pattern is not None
                else "no pattern of the authors' rule matched"
            ),
            metadata={
                "status": "single" if reading.status == "option" else reading.status,
                "letter_read": reading.letter,
                "pattern": reading.pattern,
            },
        )

    return score
