"""What every PersonaMem-v3 rule is: an object that scores a reply from the row's
scorer-only fields (`RuleScore`), says what of those fields it lacks (`missing`), and
knows the offline replies that score top and low on a row (`replies`, what
`personamem/oracle` answers). One per kind of rule (`ranking.Slate`,
`lifecycle.Lifecycle`, `geo.GeoShift`, `mistakes.MistakePrevention`); a task type holds
its own (`task_types`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.reading.scale import Headline

CANDIDATE_COUNT: Final = "candidate_count"
"""Key, among the scorer fields, of the number of the instance's `candidates` (the
slate's size, which the ranking rules need; the candidates themselves are shown)."""
PLAIN_REPLY: Final = (
    "Sounds good, here is a plain recap of your plans with the times, places and people "
    "you gave me earlier."
)
"""Sixteen distinct words that neither warn (`mistakes.WARN_PHRASE`) nor name anything: a
foil reply's body, substantive (`reading.reply.is_substantive`) whatever the gold's
length."""


@dataclass(frozen=True)
class RuleScore:
    """One row as a rule scores it."""

    raw: float
    """The rule's raw value: the headline metric's, or a lifecycle probe's match rate."""
    accuracy: float | None
    """The row's 0-100 as the authors count it; None for a lifecycle probe (its pair's
    row carries the headline)."""
    metrics: dict[str, object]
    """The row's metrics under the authors' keys."""
    substantive: bool
    """Whether the text the rule read has 15 distinct tokens (`is_substantive`)."""
    gated: bool = False
    """Whether the gate made the row 0."""
    join: dict[str, str] | None = None
    """For the rows a metric joins: {"kind": "lifecycle" | "mistake", "pair", "side"}."""

    @property
    def value(self) -> float:
        """The score's value, 0-1 as every version's: the accuracy / 100, or a probe's
        match rate."""
        return self.accuracy / 100.0 if self.accuracy is not None else self.raw


class Rule(ABC):
    """A deterministic scorer of one kind of task type."""

    @abstractmethod
    def score(
        self, reply: str, fields: Mapping[str, Any], query_id: str, headline: Headline
    ) -> RuleScore:
        """`reply` scored with the row's scorer-only `fields`, on `headline`'s 0-100."""

    @abstractmethod
    def missing(self, fields: Mapping[str, Any]) -> str:
        """What of the scorer-only `fields` this rule reads the row lacks, in words naming
        the field; empty where it lacks nothing. Without them a rule would score
        silently (a slate without labels ranks every reply perfect, ...)."""

    @abstractmethod
    def replies(self, instance: Mapping[str, Any]) -> tuple[str, str]:
        """The offline replies to a row of `instance`: one that scores top, one low."""


def candidate_count(fields: Mapping[str, Any]) -> int:
    """The slate's size among the scorer fields (`CANDIDATE_COUNT`), 0 without one."""
    count = fields.get(CANDIDATE_COUNT)
    return count if isinstance(count, int) else 0


def instance_of(query_id: str) -> str:
    """The instance id a query id ends with (`uid:seq:instance`, as `mistakes.e6_paired`)."""
    return query_id.split(":", 2)[-1]
