"""The agentic-proactiveness family (Figure 4): whether to message the user unprompted
(five types, one template: the polarity stays with the judge, no substantive gate) and
whether to warn of a mistake about to be made (a warn/foil pair, by rule)."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.judges.proactive import Proactive
from inspect_personamem.datasets.v3.prompts.agentic import PROMPTS_AGENTIC, proactive
from inspect_personamem.datasets.v3.prompts.chatbot import mistake_prevention
from inspect_personamem.datasets.v3.prompts.shown import TaskPrompt
from inspect_personamem.datasets.v3.rules.mistakes import MistakePrevention
from inspect_personamem.datasets.v3.synthetic import agentic_proactiveness as instances
from inspect_personamem.datasets.v3.synthetic.instance import InstanceBuilder
from inspect_personamem.datasets.v3.task_types.base import PROACTIVE, TaskType


def _proactive(name: str, instance: InstanceBuilder) -> TaskType:
    """A proactive type: `proactive_action_prompt`, as `run_proactive_task`
    (proactive_actions.py@8e2a111f) calls it for all five, judged by
    `judge_proactive_action`."""
    return TaskType(
        name,
        "agentic_proactiveness",
        *PROACTIVE,
        TaskPrompt(proactive, f"{PROMPTS_AGENTIC} proactive_action_prompt", "READ"),
        Proactive(),
        instance,
    )


TYPES: Final = (
    _proactive("proactive_close_friend_update", instances.proactive_close_friend_update),
    _proactive("restraint_sensitive_event_silence", instances.restraint_sensitive_event_silence),
    _proactive("proactive_friend_feed_react", instances.proactive_friend_feed_react),
    _proactive("proactive_trending_feed_react", instances.proactive_trending_feed_react),
    TaskType(
        "active_mistake_prevention",
        "agentic_proactiveness",
        "paired_correct",
        "paired_correct",
        "0/1 per row; paired F1 per set",
        TaskPrompt(
            mistake_prevention,
            "prompts.py@b8d90778 e6_active_mistake_prevention_prompt "
            "(e6_active_mistake_prevention.py@4206dddf)",
            "READ",
        ),
        MistakePrevention(),
        instance=instances.active_mistake_prevention,
        heavy=True,
    ),
    _proactive("proactive_overactive_check", instances.proactive_overactive_check),
)
"""The agentic-proactiveness types, in Figure 4's order."""
