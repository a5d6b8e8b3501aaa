"""The offline stand-in judge: what scores a type no faithful judge scores
(`base.NotBuilt`, the repetition types) where, and only where, the grader is one of the
package's offline models (`datasets.offline_model.OfflineModel`), so that an offline run (`try
--dataset v3`) scores every query it asks. It is no judge of the authors': its prompt
shows the row's gold (`example_response`) beside the reply, and the offline oracle
answers it with a match (1) where the reply is the gold, else 0 (`STAND_IN.gold_field`);
the row scores 100 or 0. A real grader is never sent it: with one these types stay
unscored (`judge_not_built`). The score's metadata names it (`kind`
`offline_stand_in`, status `offline_stand_in`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from inspect_personamem.datasets.v3.judges.base import (
    Ask,
    Judge,
    JudgedRow,
    JudgePrompt,
    Judging,
    judged_once,
)

STAND_IN_TEMPLATE: Final = (
    "OFFLINE STAND-IN JUDGE (sent only to the inspect_personamem offline models; no "
    "faithful judge of this task type exists: {why})\n\n"
    "## Gold reply (the row's example_response)\n\n{gold}\n\n"
    "## Reply to judge\n\n{reply}\n\n"
    'Answer {{"stand_in_match": 1}} where the reply is the gold reply, else '
    '{{"stand_in_match": 0}}.'
)
STAND_IN: Final = JudgePrompt(
    STAND_IN_TEMPLATE, "reply", {"stand_in_match": 1}, {"stand_in_match": 0}, gold_field="gold"
)
"""The stand-in's prompt and the judgements the offline oracle gives it."""
_MATCH: Final = re.compile(r'"stand_in_match"\s*:\s*([01])')


@dataclass(frozen=True)
class StandIn(Judge):
    """The offline stand-in of a type whose judge is not built (`why`: the reason none
    is)."""

    why: str
    kind: str = "offline_stand_in"

    @property
    def judgement(self) -> JudgePrompt:
        return STAND_IN

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        gold = self.text(self.replies(row.fields)[0])
        prompt = STAND_IN_TEMPLATE.format(why=self.why, gold=gold, reply=row.text)
        return await judged_once(
            row, prompt, ask, _read_match, "offline_stand_in", _match_score, self.why
        )


def _read_match(answer: str) -> dict[str, object] | str:
    """The stand-in's reply as its metrics (`stand_in_match`), or why it names none."""
    found = _MATCH.search(answer)
    if found is None:
        return f"the stand-in's reply names no stand_in_match: {json.dumps(answer[:80])}"
    return {"stand_in_match": int(found[1])}


def _match_score(metrics: Mapping[str, object]) -> float:
    """100 where the reply is the gold (a match), else 0."""
    return 100.0 if metrics["stand_in_match"] == 1 else 0.0
