"""The official scorer of a chosen letter: the authors' answer extraction, with its
evidence in each score. Its metrics are the least every run has; a dataset version's
task sets its own (groups, clustering: `datasets.base.DatasetVersion.metrics`).

`answered` wraps every scorer of the package once, where it is defined: a question the
model never replied to is not scored, and each score carries the question's history
record (`metrics.history_record`). At its definition, not where a task is built, so a
re-grade (`inspect score`, which makes the scorer again by its name and arguments)
scores as the run did.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Final, ParamSpec

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_personamem.scoring.actions import Actions
from inspect_personamem.scoring.extraction import judge
from inspect_personamem.scoring.metrics import history_record, unparsed

UNANSWERED = "unanswered"
"""Score status of a question that reached the scorer without a reply from the model."""

Scoring = Callable[[TaskState, Target], Awaitable[Score]]
"""A score function of a question the model replied to (what `answered` wraps)."""
P = ParamSpec("P")


def answered(factory: Callable[P, Scoring]) -> Callable[P, Scorer]:
    """A scorer factory (under Inspect's `@scorer`, whose name and arguments stay its
    own) whose scorer leaves a question the model never replied to unscored
    (`unanswered`) and adds the history record to each score's metadata."""

    @functools.wraps(factory)
    def make(*args: P.args, **kwargs: P.kwargs) -> Scorer:
        inner = factory(*args, **kwargs)

        async def score(state: TaskState, target: Target) -> Score:
            if not replied(state):
                actions = Actions.read(state.metadata)
                failed = actions is not None and actions.server_failed
                return unanswered(stopped(state), SERVER_FAILED if failed else STOPPED)
            scored = await inner(state, target)
            scored.metadata = {**(scored.metadata or {}), **history_record(state)}
            return scored

        return score

    return make


@scorer(metrics=[accuracy(), stderr(), unparsed()])
@answered
def personamem_scorer() -> Scoring:
    """Correct iff the official extraction reads exactly the target letter.

    Responses with no letter or several letters are incorrect; the score's metadata
    says which (`status`), so their share is reported as its own metric. A question
    the model never replied to (the sample was stopped by an Inspect limit, such as
    `--message-limit`, `--time-limit` or `--token-limit`, before the reply arrived, or
    while it was still calling tools: `replied`) is not an answer: its score is
    Inspect's unscored sentinel (NaN), which every metric leaves out and Inspect counts
    in the log's `unscored_samples`.
    """

    async def score(state: TaskState, target: Target) -> Score:
        correct_letter = target.text.strip("() ")
        judgement = judge(state.output.completion, correct_letter)
        return Score(
            value=CORRECT if judgement.correct else INCORRECT,
            answer="".join(f"({x})" for x in sorted(judgement.answer)),
            explanation=f"{judgement.explanation(correct_letter)}"
            f"{correct_option(state, correct_letter)}",
            metadata={
                "status": judgement.status,
                "final_answer_letters": sorted(judgement.segment_letters),
                "response_letters": sorted(judgement.response_letters),
            },
        )

    return score


def correct_option(state: TaskState, letter: str) -> str:
    """The correct option's text as the model was shown it, for the score's explanation
    (`inspect view`'s score panel): empty where the sample carries no choices."""
    index = ord(letter) - ord("a")
    if not 0 <= index < len(state.choices):
        return ""
    return f" The correct option ({letter}): {state.choices[index].value}"


TOOLS: Final = "tools"
"""The sample metadata record of the model's calls to the history's tools
(`history=tools`), saying whether its turns `finished`; an agent's record is `Actions`
(`history.seen.Seen.agent`: PersonaMem-v3's apps), with `stopped` saying why not."""


def replied(state: TaskState) -> bool:
    """Whether the model replied: it produced an output, and where it had turns of its
    own (the history tools' record, `TOOLS`, or an agent's, `Actions`), they finished. A
    question an Inspect limit stopped before the reply, or between its tool calls, or
    whose agent ran out of its budget or lost its tools, has no reply to score."""
    tools = state.metadata.get(TOOLS)
    actions = Actions.read(state.metadata)
    return (
        bool(state.output.choices)
        and (not tools or bool(tools["finished"]))
        and (actions is None or actions.finished)
    )


def stopped(state: TaskState) -> str | None:
    """Why the record of the model's turns (`TOOLS`, `Actions`) says they did not
    finish, where it says."""
    tools = state.metadata.get(TOOLS) or {}
    actions = Actions.read(state.metadata)
    reason = tools.get("stopped") or (actions.stopped if actions is not None else None)
    return str(reason) if reason else None


STOPPED = "stopped_before_reply"
"""The `reason` of an unanswered question's score: Inspect stopped it (a limit)."""
SERVER_FAILED = "server_failed"
"""The `reason` of a question whose agent's tool server failed on every try it was given
(`Actions.server_failed`): no reply, and no Inspect limit stopped it."""


def unanswered(why: str | None = None, reason: str = STOPPED) -> Score:
    """The score of a question the model never replied to: not an answer; `why`: what
    stopped it, where its record of turns says (else an Inspect limit did); `reason`,
    which of `STOPPED` and `SERVER_FAILED`."""
    return Score.unscored(
        reason=reason,
        explanation=(
            f"Not answered: {why}, so it is not scored."
            if why
            else "Not answered: the sample stopped before the model replied (an Inspect "
            "limit; the sample's `limit` says which), so it is not scored."
        ),
        metadata={"status": UNANSWERED},
    )
