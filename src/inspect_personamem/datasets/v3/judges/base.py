"""What every PersonaMem-v3 judge is: an object that judges a reply through the grader
(`Judge.judge`, one `JudgedRow`), says which text of the reply it reads and how its
prompt shows it, and knows its offline reply (the row's gold and foil) and its offline
judgement (`JudgePrompt`: how `personamem/oracle`, bound as the grader, answers its
prompt), and where its prompt is not the authors' own file, where it is from
(`provenance`). One per judge (`unified`, `rubric`, `sycophancy`, `preference_shift`,
`proactive`, `new_suggestions`, `abstention`, `deep_motivation`) and `NotBuilt` where no
readable judge gives a type's headline; a task type holds its own (`task_types`).
"""

from __future__ import annotations

import re
import string
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from inspect_personamem.datasets.v3.reading.reply import response_text
from inspect_personamem.datasets.v3.reading.scale import Headline

JudgeChoice = Literal["unified", "per_dimension"]
"""Which rubric judge scores the rubric types (`-T judge=`)."""

Ask = Callable[[str], Awaitable[str]]
"""A judge call: the prompt -> the judge's reply text."""
Status = Literal[
    "judged", "rule_zero", "gated", "judge_unreadable", "no_faithful_judge", "offline_stand_in"
]
Judgement = Mapping[str, object]


@dataclass(frozen=True)
class Call:
    """One judge call: the prompt sent and the reply read."""

    prompt: str
    reply: str


@dataclass(frozen=True)
class JudgedRow:
    """A judged row: its status, the authors' metrics, its 0-100 accuracy (None where
    unscored), the text judged and the calls made."""

    status: Status
    metrics: dict[str, object]
    accuracy: float | None
    text: str
    calls: tuple[Call, ...] = ()
    note: str = ""
    authors_accuracy: float | None = None
    """What the authors' scripts write where ours is unscored (None where unknown)."""
    actions: Mapping[str, object] | None = None
    """An agent run's checks (`scoring.verifiers.ActionChecks.record`); None without."""


@dataclass(frozen=True)
class Judging:
    """One row as a judge reads it."""

    text: str
    """The judge's text of the reply (`Judge.text`)."""
    reply: str
    fields: Mapping[str, Any]
    """The row's scorer-only instance fields."""
    shown: Mapping[str, Any]
    """What the model was shown of the instance."""
    headline: Headline
    """The task type's headline: its metric on the authors' 0-100."""


@dataclass(frozen=True)
class JudgePrompt:
    """A judge prompt's template, the field it fills with the reply, and the top and
    lowest judgements its reader reads: what the offline oracle answers it."""

    template: str
    reply_field: str
    top: Judgement
    low: Judgement
    gold_field: str | None = None
    """The field showing the gold reply, where the prompt shows it (the offline
    stand-in's, `stand_in`): the oracle's judgement is then the top one where the reply
    is that gold; None: where the reply is one of the top replies it knows."""

    def fields(self, prompt: str) -> dict[str, str] | None:
        """The text each of the template's fields holds in `prompt` (the first where a
        field recurs), read between the template's own texts; None where `prompt` is
        not this template's."""
        pattern, names = "", []
        for literal, name, _, _ in string.Formatter().parse(self.template):
            pattern += re.escape(literal)
            if name is not None:
                pattern += "(.*?)"
                names.append(name)
        found = re.fullmatch(pattern, prompt, re.DOTALL)
        if found is None:
            return None
        read: dict[str, str] = {}
        for name, value in zip(names, found.groups(), strict=True):
            read.setdefault(name, value)
        return read


class Judge(ABC):
    """A judged task type's scorer. `kind` names the judge, `why` its source (or, for
    `NotBuilt`, why there is none)."""

    kind: str
    why: str

    @property
    def built(self) -> bool:
        """Whether a judge gives the headline (False: the row is unscored)."""
        return True

    @property
    def judgement(self) -> JudgePrompt | None:
        """The offline oracle's judgement of this judge's prompt (None without a judge)."""
        return None

    @property
    def provenance(self) -> Mapping[str, str]:
        """Where its prompt's text comes from and its digest, for the score's metadata,
        where that is not the authors' own file (empty where it is: the log's prompt
        digests, `texts.TEXT_SHA256`, name those)."""
        return {}

    def text(self, reply: str) -> str:
        """The text the judge reads (and the gate counts): the reply's `response`, or the
        whole reply."""
        return response_text(reply)

    def shown(self, reply: str) -> str:
        """The reply as the judge prompt shows it."""
        return self.text(reply)

    def missing(self, fields: Mapping[str, Any]) -> str:
        """What of the scorer-only `fields` this judge's prompt needs the row lacks, in
        words naming the field; empty where it lacks nothing (a judge asked about an
        empty claim would score silently)."""
        return ""

    def replies(self, instance: Mapping[str, Any]) -> tuple[str, str]:
        """The offline replies: the row's `example_response` (the gold) and its
        `inferior_response` text (real rows hold `{text, flaw_kind, ...}`, or, on
        `hidden_persona_implicit_qa`, the text itself)."""
        inferior = instance.get("inferior_response")
        foil = inferior.get("text") if isinstance(inferior, Mapping) else inferior
        return str(instance.get("example_response") or ""), str(foil or "")

    @abstractmethod
    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        """One row judged through `ask`, the grader."""


async def judged_once(
    row: Judging,
    prompt: str,
    ask: Ask,
    metrics: Callable[[str], dict[str, object] | str],
    status: Status,
    score: Callable[[Mapping[str, object]], float | None],
    note: str = "",
) -> JudgedRow:
    """One judge call on `row`: `metrics` reads the judge's reply into the row's metrics,
    or says why it gives none (the row is then unscored, `judge_unreadable`, with that as
    its note); a read row takes `status`, `score` of its metrics as its 0-100 accuracy
    (a faithful judge's is its headline's, `row.headline.accuracy`) and `note`."""
    answer = await ask(prompt)
    calls = (Call(prompt, answer),)
    read = metrics(answer)
    if isinstance(read, str):
        return JudgedRow("judge_unreadable", {}, None, row.text, calls, read)
    return JudgedRow(status, read, score(read), row.text, calls, note)


@dataclass(frozen=True)
class NotBuilt(Judge):
    """A judged type no readable judge scores: its rows are unscored, `why` says why."""

    why: str
    kind: str = "not_built"

    @property
    def built(self) -> bool:
        return False

    async def judge(self, row: Judging, ask: Ask) -> JudgedRow:
        return JudgedRow("no_faithful_judge", {}, None, row.text, note=self.why)
