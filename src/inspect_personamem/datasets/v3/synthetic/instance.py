"""What a task type's instance builder is: given a persona's `world.World`, it adds the
events its queries rest on and returns its `k` queries (`Built`), each with its instance
fields and the row cells its type sets (`Cells`). One builder per task type, by family
(`personalization`, `recommendation`, `over_personalization`, `agentic_tasks`,
`agentic_proactiveness`), each a function named after its type, which the type's
object holds (`task_types`, `TaskType.instance`).

An instance holds every field its prompt builder reads (`samples.PROMPTS`) and the fields
the rules and judges take (`rules`, `ranking`, `judge`), under the authors' names where
their builder was read: slates with `held_out_idx` / `hard_negative_idxs` (recsys, hidden
persona: 16 candidates, 7 hard negatives as persona 105's), `positive_indices` /
`carveout_indices` (@AI), `candidates` / `matching_indices` / `phase` / `canonical_id`
(lifecycle, pre and post in pairs), `current_city` / `prior_city` (geo shift, after the
persona's own city change), warn/foil pairs (`pair_id`, `polarity`, instance ids ending
`_warn` / `_foil`), repetition clusters (`cluster_id`, `cluster_hashtags`,
`n_allowed_repetitions`), `privacy_flagged_prefs` (leak items), `expected_behavior` /
`jitai_card` / `trigger_evidence` (proactive), the sycophancy and new-suggestion judges'
inputs, and on every row `example_response` (gold), `inferior_response` `{text,
flaw_kind}` and `groundtruth_preference`; the generator's driver adds `gt_slice` (the
+-24 h slice) and `post_test_window` from the `Query`. Where the authors' builder was not
read the names are the judge's parameters or our own (`FIELDS_OURS`).

The evidence an oracle needs is placed in events before the query's time, and decoys
(what a leak of the future would show: the held-out engagement, the next city, a reversed
directive) after it (`World.ev`, `World.decoy`); the instance lists both under
`_generated_evidence` and `_generated_decoys`. Keys with a leading underscore are
scorer-only (`samples.SCORER_ONLY`), so no prompt shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.synthetic.vocabulary import Topic
from inspect_personamem.datasets.v3.synthetic.world import Query, World

FIELDS_OURS: Final = (
    "_generated_evidence",
    "_generated_decoys",
    "cluster_id",
    "cluster_position",
    "gold_topic",
    "gold_hashtags",
    "fatigued_hashtags",
    "leak_set_hashtags",
    "trigger_kind",
    "subtype",
    "false_claim",
    "correct_stance",
)
"""Instance fields named here (or after a judge's parameters) where the authors' builder
was not read: a reader of the real files must check them."""


@dataclass(frozen=True)
class Cells:
    """The cells of a query row (`records.COLUMNS`) that its task type sets, beside the
    instance: `task_family` (the pipeline's code, `tasks.FAMILY_CODES`), `app_context`,
    `entry_point`, `mcp_tools_allowed`, `state_write_policy`, `expected_response_kind`,
    `rubric_tags` (joined by `;`) and `display_rubric`."""

    family: str
    tags: tuple[str, ...]
    app: str = ""
    entry: str = "chatbot_routed"
    tools: str = "none"
    policy: str = "read_only"
    kind: str = "text"
    rubric: str = "(+) Grounded in the user's history."


@dataclass(frozen=True)
class Built:
    """One query a builder made: its time and events (`query`), its instance fields
    (`instance_id` first, in the order the instance holds them) and its row's cells."""

    query: Query
    fields: dict[str, Any]
    cells: Cells


InstanceBuilder = Callable[[World], list[Built]]
"""A task type's instance builder: the persona's world in (the builder draws from its
`rng` and adds events to its streams), the type's `world.k` queries out."""

Made = tuple[dict[str, Any], Cells]
"""One query's instance fields (without `instance_id`) and row cells, as `each` takes
them from its `make`."""


def each(
    world: World,
    prefix: str,
    make: Callable[[Query], Made],
    times: Sequence[int] | None = None,
) -> list[Built]:
    """`world.k` queries, each at its time in `times` (by default a whole hour drawn in
    the query window), made by `make`; instance ids `{prefix}_{uid}_{k:02d}`."""
    out = []
    for k in range(world.k):
        t = times[k] if times is not None else world.query_time()
        q = Query(k, t)
        fields, cells = make(q)
        out.append(Built(q, {"instance_id": f"{prefix}_{world.uid}_{k:02d}", **fields}, cells))
    return out


def prior(world: World, topic: Topic) -> list[dict[str, str]]:
    """A short earlier exchange about `topic`, as an instance's `prior_conversation`."""
    return [
        {"role": "user", "content": f"quick one about {topic[0]}: {world.text.about(40)}"},
        {"role": "assistant", "content": world.text.about(120)},
    ]


def gold(good: str, bad: str, flaw: str) -> dict[str, Any]:
    """An instance's gold reply and its inferior one, with the inferior one's flaw."""
    return {
        "example_response": good,
        "inferior_response": {"text": bad, "flaw_kind": flaw},
    }
