"""The PersonaMem scorer: official answer extraction, with its evidence in each score."""

from __future__ import annotations

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from .answer import judge
from .metrics import personamem_metrics


@scorer(metrics=personamem_metrics())
def personamem_scorer() -> Scorer:
    """Correct iff the official extraction reads exactly the target letter.

    Responses with no letter or several letters are incorrect; the score's metadata
    says which (`status`), so their share is reported as its own metric.
    """

    async def score(state: TaskState, target: Target) -> Score:
        correct_letter = target.text.strip("() ")
        judgement = judge(state.output.completion, correct_letter)
        return Score(
            value=CORRECT if judgement.correct else INCORRECT,
            answer="".join(f"({x})" for x in sorted(judgement.answer)),
            explanation=judgement.explanation(correct_letter),
            metadata={
                "status": judgement.status,
                "final_answer_letters": sorted(judgement.segment_letters),
                "response_letters": sorted(judgement.response_letters),
            },
        )

    return score
