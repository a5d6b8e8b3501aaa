"""What a task type's instance builder is: given a persona's `world.World`, it adds the
events its queries rest on and returns its `k` queries (`Built`), each with its instance
fields and the row cells its type sets (`Cells`). One builder per task type, by family
(`personalization`, `recommendation`, `over_personalization`, `agentic_tasks`,
`agentic_proactiveness`), each a function named after its type, which the type's
object holds (`task_types`, `TaskType.instance`).

An instance has the keys and nested shapes the released rows of its type have (persona
105's and 115's key manifests, `tests/fixtures/personamem_v3_real/`; held by
`tests/datasets/v3/test_v3_generator_keys.py`): the authors' task builders' head
(`task_head`: `instance_id`, `task_id`, `entry_point`, `t_test`) on agentic, slate and QA
rows; the chatbot-arm head and slices (`chat_head`, `windows`: `test_id`, `arm`, the
user's message and prior turns, `gt_slice`, the top-k and flagged preferences,
`post_test_window`) on chatbot rows; the gold and its foil (`gold`: `example_response`,
`inferior_response` `{text, flaw_kind, flaw_evidence}`, where real rows have it the
gold's `example_response_self_check`), and `groundtruth_preference`. A type no manifest
holds yet keeps the fields the generator gave every row before (`unchecked`); the names
of its fields read nowhere else are ours (`FIELDS_OURS`).

The evidence an oracle needs is placed in events before the query's time, and decoys
(what a leak of the future would show: the held-out engagement, the next city, a reversed
directive) after it (`World.ev`, `World.decoy`); the instance lists both under
`_generated_evidence` and `_generated_decoys`. Keys with a leading underscore are
scorer-only (`samples.SCORER_ONLY`), so no prompt shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.synthetic.vocabulary import Topic
from inspect_personamem.datasets.v3.synthetic.world import DAY, Query, World, formatted

FIELDS_OURS: Final = (
    "_generated_evidence",
    "_generated_decoys",
    "gold_topic",
    "gold_hashtags",
    "fatigued_hashtags",
    "leak_set_hashtags",
    "trigger_kind",
)
"""Instance fields named here (or after a judge's parameters) where no real row of the
type has been read: a reader of the real files must check them
(`tests/datasets/v3/test_v3_generator_keys.py` holds every type the real fixtures
hold to their keys)."""
SELF_CHECK: Final = {"score": 3, "passed": True, "reason": "generated"}
"""A gold reply's `example_response_self_check`, as the authors' build writes one."""
WINDOW_HOURS: Final = 48
"""The hours after the query a chatbot row's `post_test_window` covers."""


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
    """One query a builder made: its time and events (`query`), its instance fields (in
    the order the instance holds them) and its row's cells; its `instance_id` cell is
    the query's `iid`."""

    query: Query
    fields: dict[str, Any]
    cells: Cells


InstanceBuilder = Callable[[World], list[Built]]
"""A task type's instance builder: the persona's world in (the builder draws from its
`rng` and adds events to its streams), the type's `world.k` queries out."""

Made = tuple[dict[str, Any], Cells]
"""One query's instance fields and row cells, as `each` takes them from its `make`."""


def each(
    world: World,
    prefix: str,
    make: Callable[[Query], Made],
    times: Sequence[int] | None = None,
) -> list[Built]:
    """`world.k` queries, each at its time in `times` (by default a second drawn in the
    query window, `World.query_time`), made by `make`; instance ids `{prefix}_{uid}_{k:02d}`."""
    out = []
    for k in range(world.k):
        t = times[k] if times is not None else world.query_time()
        q = Query(k, t, f"{prefix}_{world.uid}_{k:02d}")
        fields, cells = make(q)
        out.append(Built(q, fields, cells))
    return out


def task_head(q: Query, task_id: str, entry: str = "chatbot_routed") -> dict[str, Any]:
    """The head of a row the authors' task builders write (agentic, slate, QA rows):
    `instance_id`, `task_id`, `entry_point`, `t_test`."""
    return {"instance_id": q.iid, "task_id": task_id, "entry_point": entry, "t_test": q.t}


def chat_head(
    q: Query,
    arm: str,
    user_query: str,
    prior_conversation: list[dict[str, str]],
    *,
    action: str = "asked_chatbot",
    tags: Sequence[str] = (),
    held_out: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The head of a chatbot-arm row (`run_task_b`'s rows: personalized, sensitive
    event, ...), as persona 105's and 115's rows hold it: the test's id and arm, its
    time, the user's message and prior turns, the engagement it stands for."""
    return {
        "test_id": q.iid,
        "arm": arm,
        "source_timestamp": q.t,
        "formatted_timestamp": formatted(q.t),
        "user_query": user_query,
        "prior_conversation": prior_conversation,
        "action": action,
        "source_hashtags": list(tags),
        "held_out_preference": held_out,
        "blind_check_score": None,
        "blind_check_generic_answer": None,
    }


def windows(
    q: Query,
    top_k: Sequence[dict[str, Any]] = (),
    flagged: Sequence[dict[str, Any]] = (),
    *,
    engagements: bool = True,
    sliced: bool = True,
) -> dict[str, Any]:
    """A chatbot-arm row's slices: `gt_slice` (the preferences the +-24 h around the
    query show, with their polarity), the top-k and flagged preferences, and
    `post_test_window` (what the user engaged with in the 48 h after it: the decoys;
    with `engagements`, the events themselves; `sliced`: the slice's and the window's
    preferences, which the sensitive-event rows leave empty). Call it once the query's
    events are placed."""
    after = [r for r in q.decoys if r["app"] != "calendar"]
    made: dict[str, Any] = {
        "post_test_positives": list(q.after) if sliced else [],
        "post_test_negatives": [],
    }
    if engagements:
        made["post_test_engagements"] = [
            {
                "app": ref["app"],
                "event_id": ref["id"],
                "persona_items": [pref["persona_item"]],
                "source_hashtags": pref["source_hashtags"],
                "source_interaction_type": "explicit_positive",
                "source_timestamp": ref["ts"],
            }
            for ref, pref in zip(after, q.after, strict=False)
        ]
        made["window_hours"] = WINDOW_HOURS
    return {
        "gt_slice": {
            "t_test": q.t,
            "window_seconds": DAY,
            "target": [{**p, "polarity": "positive"} for p in q.target] if sliced else [],
            "avoid": [{**p, "polarity": "negative"} for p in q.avoid] if sliced else [],
        },
        "top_k_relevant_prefs": list(top_k),
        "privacy_flagged_prefs": list(flagged),
        "post_test_window": made,
    }


def prior(world: World, topic: Topic) -> list[dict[str, str]]:
    """A short earlier exchange about `topic`, as an instance's `prior_conversation`."""
    return [
        {"role": "user", "content": f"quick one about {topic[0]}: {world.text.about(40)}"},
        {"role": "assistant", "content": world.text.about(120)},
    ]


def gold(
    good: str,
    bad: str,
    flaw: str,
    evidence: Mapping[str, Any] | None = None,
    *,
    checked: bool = True,
    marked: bool = True,
) -> dict[str, Any]:
    """An instance's gold reply and its inferior one, with the inferior one's flaw and
    the evidence of it (`flaw_evidence`; `marked`: with `_from` naming what wrote it,
    which the proactive rows' evidence lacks); `checked`: with the gold's
    `example_response_self_check`, which some types' real rows lack."""
    made: dict[str, Any] = {"example_response": good}
    if checked:
        made["example_response_self_check"] = dict(SELF_CHECK)
    mark = {"_from": "generated"} if marked else {}
    made["inferior_response"] = {
        "text": bad,
        "flaw_kind": flaw,
        "flaw_evidence": {**mark, **(evidence or {})},
    }
    return made


def unchecked(q: Query, task: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """A row of a type no real row has been read of yet (no key manifest under
    tests/fixtures/personamem_v3_real holds it): the head and slices the generator
    gave every row before real rows were read, around `fields`. Each type leaves it
    for its real keys once a manifest holds the type."""
    return {
        "instance_id": q.iid,
        "task_id": task,
        "t_test": q.t,
        "source_timestamp": q.t,
        "formatted_timestamp": formatted(q.t),
        **fields,
        "gt_slice": {"t_test": q.t, "window_seconds": DAY, "target": q.target, "avoid": q.avoid},
        "post_test_window": {"post_test_positives": q.after, "post_test_negatives": []},
        "example_response_self_check": dict(SELF_CHECK),
    }
