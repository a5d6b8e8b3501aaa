"""The agentic-tasks family (Figure 4): the agent posts, sends, digests, summarizes,
reposts, replies, refinds, catches up and alerts on the user's behalf. Each is prompted
by the `prompts_agentic` template the runner's `_prompt_for` names
(tasks/agentic_tasks.py@8e2a111f; `agentic_send_post` is T12 for every row) and judged by
the unified 0-10 rubric (`-T judge=per_dimension`: the per-dim 0-3 rubric) on the
reply's first truthy `final_answer`, `response`, `summary` or `reply_to_user`, a dict or
list JSON-dumped (tasks/agentic_tasks.py@8e2a111f, the generic dispatch, which applies no
substantive gate), and an agent run of it checked by its
output-quality verifier where the authors' registry has one (`rules.quality`)."""

from __future__ import annotations

from typing import Final

from inspect_personamem.datasets.v3.judges.rubric import Rubric
from inspect_personamem.datasets.v3.judges.rubric_texts import APPLICABILITY
from inspect_personamem.datasets.v3.judges.unified import Unified
from inspect_personamem.datasets.v3.prompts import agentic
from inspect_personamem.datasets.v3.prompts.agentic import PROMPTS_AGENTIC
from inspect_personamem.datasets.v3.prompts.shown import Builder, TaskPrompt
from inspect_personamem.datasets.v3.reading.reply import AGENTIC_TEXT_KEYS
from inspect_personamem.datasets.v3.rules import quality
from inspect_personamem.datasets.v3.rules.quality import Verifier
from inspect_personamem.datasets.v3.synthetic import agentic_tasks as instances
from inspect_personamem.datasets.v3.synthetic.instance import InstanceBuilder
from inspect_personamem.datasets.v3.task_types.base import PR, TaskType


def _agentic(
    name: str,
    build: Builder,
    template: str,
    verifier: Verifier | None,
    instance: InstanceBuilder,
    *,
    heavy: bool = False,
) -> TaskType:
    """An agentic type: judged by the unified rubric (rubric v3's row of its name); under
    `judge=per_dimension` by the per-dim rubric's row at 8fd0dd9b (none for
    `agentic_community_post`: no maximum, unscored)."""
    return TaskType(
        name,
        "agentic_tasks",
        *PR,
        TaskPrompt(build, f"{PROMPTS_AGENTIC} {template}", "READ"),
        Unified(name, text_keys=AGENTIC_TEXT_KEYS),
        instance,
        heavy=heavy,
        verifier=verifier,
        per_dimension=Rubric(APPLICABILITY.get(name, {}), text_keys=AGENTIC_TEXT_KEYS),
    )


TYPES: Final = (
    _agentic(
        "agentic_community_post",
        agentic.t6_community_post,
        "t6_user_tone_post",
        None,
        instances.agentic_community_post,
        heavy=True,
    ),
    _agentic(
        "agentic_send_post",
        agentic.t12_send_post,
        "t12_agent_composed_post",
        quality.send_post,
        instances.agentic_send_post,
        heavy=True,
    ),
    _agentic(
        "agentic_dm_digest",
        agentic.t8_dm_digest,
        "t8_dm_digest",
        quality.dm_digest,
        instances.agentic_dm_digest,
    ),
    _agentic(
        "agentic_group_dm_summary",
        agentic.t16_group_dm_summary,
        "t16_group_dm_summary",
        quality.group_dm_summary,
        instances.agentic_group_dm_summary,
    ),
    _agentic(
        "agentic_cross_app_repost",
        agentic.t9_cross_app_repost,
        "t9_cross_app_repost",
        quality.cross_app_repost,
        instances.agentic_cross_app_repost,
        heavy=True,
    ),
    _agentic(
        "agentic_auto_reply",
        agentic.t10_auto_reply,
        "t10_auto_reply",
        quality.auto_reply,
        instances.agentic_auto_reply,
        heavy=True,
    ),
    _agentic(
        "agentic_vague_refind",
        agentic.t11_vague_refind,
        "t11_vague_refind",
        quality.vague_refind,
        instances.agentic_vague_refind,
        heavy=True,
    ),
    _agentic(
        "agentic_proactive_daily_catchup",
        agentic.t18_daily,
        "t18_proactive_daily",
        quality.daily_catchup,
        instances.agentic_proactive_daily_catchup,
    ),
    _agentic(
        "agentic_trending_alert",
        agentic.t19_trending,
        "t19_trending_alert",
        quality.trending_alert,
        instances.agentic_trending_alert,
    ),
)
"""The agentic-tasks types, in Figure 4's order."""
