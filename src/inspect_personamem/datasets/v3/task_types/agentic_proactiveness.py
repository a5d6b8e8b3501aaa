"""The agentic-proactiveness family (Figure 4): whether to message the user unprompted
(five types, one template: the polarity stays with the judge, no substantive gate) and
whether to warn of a mistake about to be made (a warn/foil pair, by rule)."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.judges.proactive import Proactive
from inspect_personamem.datasets.v3.prompts.agentic import proactive
from inspect_personamem.datasets.v3.prompts.chatbot import mistake_prevention
from inspect_personamem.datasets.v3.prompts.shown import Provenance, TaskPrompt
from inspect_personamem.datasets.v3.rules.mistakes import MistakePrevention
from inspect_personamem.datasets.v3.task_types.base import PROACTIVE, TaskType


def _proactive(name: str, provenance: Provenance) -> TaskType:
    """A proactive type: `proactive_action_prompt`, judged by `judge_proactive_action`."""
    return TaskType(
        name,
        "agentic_proactiveness",
        *PROACTIVE,
        TaskPrompt(proactive, "prompts_agentic proactive", provenance),
        Proactive(),
    )


TYPES: Final = (
    _proactive("proactive_close_friend_update", "READ"),
    _proactive("restraint_sensitive_event_silence", "READ"),
    _proactive("proactive_friend_feed_react", "INFERRED"),
    _proactive("proactive_trending_feed_react", "INFERRED"),
    TaskType(
        "active_mistake_prevention",
        "agentic_proactiveness",
        "paired_correct",
        "paired_correct",
        "0/1 per row; paired F1 per set",
        TaskPrompt(
            mistake_prevention, "prompts.py@dc56d425 e6_active_mistake_prevention_prompt", "READ"
        ),
        MistakePrevention(),
        heavy=True,
    ),
    _proactive("proactive_overactive_check", "INFERRED"),
)
"""The agentic-proactiveness types, in Figure 4's order."""
