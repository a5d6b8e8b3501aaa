"""Scoring an agent's actions (issue 39, item 3; `datasets/v3/scoring/verifiers.py` and
`judged.judge_row` given `actions`): the row's `tool_call_rules` counted over the calls,
its `final_state_expected` over the writes, the output-quality verifiers over the reply
and the writes, and the status they give the row as the authors' agentic runner gives it
(a required write missing or a failed verifier: 0, without a judge call); a write on a
proactive row where silence is right: 0; a rule no check reads: an error naming it; the
judge reads the reply as the authors' judge does (not the writes). Expected values are
worked by hand in the comments."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import Score
from support.helpers import mock_model
from support.v3_scoring import replied, row_metadata, score_judged

from inspect_personamem.datasets.v3.generator import generate
from inspect_personamem.datasets.v3.judges.base import JudgedRow
from inspect_personamem.datasets.v3.prompts.shown import SHOWN_KEY
from inspect_personamem.datasets.v3.rules.quality import Traced
from inspect_personamem.datasets.v3.scoring.by_rule import missing_field
from inspect_personamem.datasets.v3.scoring.judged import judge_row
from inspect_personamem.datasets.v3.scoring.verifiers import (
    ActionRuleError,
    check_actions,
    check_final_state,
    check_tool_call_rules,
    tool_name,
    trace,
)
from inspect_personamem.datasets.v3.task_types.registry import TASK_TYPES
from inspect_personamem.errors import PersonaMemDataError
from inspect_personamem.run.tasks import personamem_v3

# 20+ distinct tokens: what the reply's `summary` says (the text the rubric judges).
SUMMARY = (
    "Posted a caption about weekend sourdough experiments on threads, in the user's "
    "relaxed voice with their usual hashtags and one small joke about burnt crusts"
)
CONTEXT = "we talked about sourdough baking and weekend bread experiments with friends"
CAPTION = "Weekend sourdough bread experiments are my whole personality now"
SEND_POST: dict[str, Any] = {
    "tool_call_rules": ["count('mcp__threads__create_post') == 1"],
    "final_state_expected": {"writes": ["mcp__threads__create_post"]},
}
SHOWN: dict[str, Any] = {"target_app": "threads", "context": CONTEXT}
REPLY = json.dumps({"summary": SUMMARY, "tool_called": "mcp__threads__create_post"})
UNIFIED_AT_8 = {
    **dict.fromkeys(("voice_match", "preference_alignment", "over_personalization"), 8),
    **dict.fromkeys(("telegraph_avoidance", "relationship_aware", "helpfulness"), 10),
}
"""A unified judgement: every task's target dim at 8, every check clean, no hard rule
violated: 8 of 10 on any agentic type (80)."""


def call(tool: str, arguments: Mapping[str, Any], error: str | None = None) -> dict[str, Any]:
    return {"tool": tool, "arguments": dict(arguments), "error": error}


def write(
    tool: str, arguments: Mapping[str, Any], text: str = "", hashtags: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A write record (the authors' writes.jsonl record plus the arguments, with the
    defaults filled), its event shaped as their servers' (`content.caption`,
    `source_hashtags`)."""
    return {
        "tool": tool,
        "app": tool.split("_", 1)[0],
        "arguments": {**arguments, "media_refs": None},
        "synthetic_event_id": "synthetic_0",
        "timestamp_ms": 1_775_000_000_000,
        "event": {"content": {"caption": text}, "source_hashtags": list(hashtags)},
    }


def actions(calls: list[dict[str, Any]], writes: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "setting": "apps",
        "server": None,
        "calls": calls,
        "reads": sum(1 for c in calls if not c["tool"].endswith(("_create_post", "_message"))),
        "writes": writes,
        "turns": len(calls) + 1,
        "budget": {"turns": 15, "tokens": None},
        "out_of_budget": None,
    }


def posted(caption: str) -> dict[str, Any]:
    """A send_post run: one feed read, one post on threads with `caption`."""
    args = {"caption": caption}
    return actions(
        [call("threads_get_feed", {"limit": 5}), call("threads_create_post", args)],
        [write("threads_create_post", args, caption, ("#sourdough",))],
    )


READ_ONLY = actions([call("threads_get_feed", {"limit": 5})], [])


class Judge:
    """A scripted judge: every reply `answer`; the prompts are kept."""

    def __init__(self, answer: Mapping[str, Any]) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return json.dumps(self.answer)


def row(
    task_type: str,
    reply: str,
    judge: Judge,
    fields: Mapping[str, Any],
    shown: Mapping[str, Any],
    run: Mapping[str, Any] | None,
) -> JudgedRow:
    async def go() -> JudgedRow:
        return await judge_row(task_type, reply, fields, shown, judge, run)

    return anyio.run(go)


# --- the rules ---------------------------------------------------------------------------


def test_claude_codes_tool_names_read_as_the_registrys() -> None:
    assert tool_name("mcp__threads__create_post") == "threads_create_post"
    assert tool_name("mcp__threads__threads_create_post") == "threads_create_post"
    assert tool_name("instagram_send_dm") == "instagram_send_dm"
    assert tool_name("__any_write__") == "__any_write__"


def test_the_rules_count_successful_calls_each_write_as_its_record() -> None:
    # chatbot_send_post_to_app's write is recorded as threads_create_post (the authors'
    # overlay): the rules count it so; the failed send_dm changed nothing and is not
    # counted; the list_dms read is
    post = {"target_app": "threads", "caption": "fresh sourdough"}
    run = actions(
        [
            call("instagram_list_dms", {}),
            call("chatbot_send_post_to_app", post),
            call("instagram_send_dm", {"recipient_id": "f1", "message": "hi"}, "unknown friend"),
        ],
        [write("threads_create_post", post, "fresh sourdough")],
    )
    calls = trace(run)
    event = {"content": {"caption": "fresh sourdough"}, "source_hashtags": []}
    assert calls == [
        Traced("instagram_list_dms", {}),
        Traced("threads_create_post", event, True),
    ]
    rules = [
        "count('instagram_list_dms') >= 1",
        "count('mcp__threads__create_post') == 1",
        "count('chatbot_send_post_to_app') == 0",
        "count('instagram_send_dm') == 0",
        "count('__any_write__') == 0",
        "count('threads_create_post')<1",
        "any('SOURDOUGH')",
        "none('sourdough')",
        "none('recipient')",
    ]
    assert check_tool_call_rules(rules, calls) == {
        "count('instagram_list_dms') >= 1": "pass",
        "count('mcp__threads__create_post') == 1": "pass",
        "count('chatbot_send_post_to_app') == 0": "pass",
        "count('instagram_send_dm') == 0": "pass",
        "count('__any_write__') == 0": "fail (1 vs 0)",
        "count('threads_create_post')<1": "fail (1 vs 1)",
        "any('SOURDOUGH')": "pass",  # the event, lower-cased
        "none('sourdough')": "fail",
        "none('recipient')": "pass",  # only in the failed call
    }


@pytest.mark.parametrize(
    "rule",
    [
        "count(threads_create_post) == 1",  # no quotes
        "count('threads_create_post') == 1 and count('x') == 0",  # more than one rule
        "count('threads_create_post') != 1",
        "sum('threads_create_post') == 1",
    ],
)
def test_a_rule_no_check_reads_is_an_error_naming_it(rule: str) -> None:
    message = f"field `tool_call_rules`: {rule!r} is neither count('tool') OP N"
    with pytest.raises(ActionRuleError) as error:
        check_tool_call_rules([rule], [])
    assert str(error.value).startswith(message)
    assert missing_field("agentic_send_post", {"tool_call_rules": [rule]}).startswith(message)
    fields = {**SEND_POST, "tool_call_rules": [rule]}
    with pytest.raises(ActionRuleError, match="field `tool_call_rules`"):
        row("agentic_send_post", REPLY, Judge({"score": 3}), fields, SHOWN, posted(CAPTION))


def test_a_write_no_successful_call_made_is_an_error() -> None:
    args = {"caption": CAPTION}
    run = actions(
        [call("threads_create_post", args, "refused")], [write("threads_create_post", args)]
    )
    with pytest.raises(ActionRuleError, match="write 0 .'threads_create_post'. has no succ"):
        trace(run)
    # a read of the same post before a reaction is not the reaction's call
    react = {"post_id": "p1", "reaction_type": "like"}
    run = actions(
        [call("instagram_get_post", {"post_id": "p1"}), call("instagram_react", react)],
        [write("instagram_react", react)],
    )
    assert [(c.name, c.written) for c in trace(run)] == [
        ("instagram_get_post", False),
        ("instagram_react", True),
    ]


def test_final_state_as_the_authors_check_it() -> None:
    # must_contain_count 1 of threads met; instagram forbidden but written once: a
    # must_not_contain failure, which fails no row (only a missing required write does)
    expected = {
        "must_contain_count": {"threads_create_post": 1},
        "must_not_contain": ["instagram_create_post"],
    }
    writes = [Traced("threads_create_post", {}, True), Traced("instagram_create_post", {}, True)]
    state = check_final_state(expected, writes)
    assert state.results == (
        ("count(threads_create_post)==1", "pass"),
        ("count(instagram_create_post)==0", "fail (1)"),
    )
    assert (state.must_contain_failed, state.must_not_contain_failed) == (0, 1)
    assert (state.passed, state.failed, state.requires_write) == (1, 1, True)
    # the E6 shape: `writes: []` forbids every write and requires none
    none = check_final_state({"writes": []}, writes)
    assert none.results == (("count(writes other than none)==0", "fail (2)"),)
    assert (none.requires_write, none.must_not_contain_failed) == (False, 1)
    with pytest.raises(ActionRuleError, match="`final_state_expected`: key 'must_have' is none"):
        check_final_state({"must_have": ["threads_create_post"]}, writes)
    assert missing_field("agentic_send_post", {"final_state_expected": ["x"]}) == (
        "field `final_state_expected`: ['x'] is not an object"
    )


# --- agentic rows ------------------------------------------------------------------------


def test_send_post_with_the_required_write_is_judged_on_the_reply() -> None:
    # the unified judge: voice_match 8, telegraph clean: 8 of 10 -> 80; the write passes
    # all: the rule (1 post), the final state (1 post, no other write), the verifier (the
    # post on threads; the caption shares weekend, sourdough, bread, experiments with the
    # context: 4 >= 2)
    judge = Judge(UNIFIED_AT_8)
    result = row("agentic_send_post", REPLY, judge, SEND_POST, SHOWN, posted(CAPTION))
    assert result.status == "judged" and result.accuracy == pytest.approx(80.0)
    assert {
        key: result.metrics[key] for key in ("tool_call_rules_pass", "tool_call_rules_fail")
    } == {
        "tool_call_rules_pass": 1,
        "tool_call_rules_fail": 0,
    }
    assert (
        result.metrics["final_state_rules_passed"],
        result.metrics["output_quality_passed"],
    ) == (
        2,
        2,
    )
    assert result.actions == {
        "status": "ok",
        "writes": 1,
        "tool_call_rules": {"count('mcp__threads__create_post') == 1": "pass"},
        "final_state": [
            ["count(threads_create_post)==1", "pass"],
            ["count(writes other than threads_create_post)==0", "pass"],
        ],
        "output_quality": [
            ["post_on_target_app", "pass"],
            ["addresses_context", "pass"],
        ],
    }
    # the judge reads the reply's summary, as the authors' rubric does; the caption
    # reaches only the verifier
    (prompt,) = judge.prompts
    judged = prompt.split("## Response to judge", 1)[1]
    assert judged.strip().startswith(SUMMARY) and CAPTION not in prompt


def test_send_post_without_the_required_write_scores_zero_without_a_judge() -> None:
    judge = Judge({"score": 3})
    result = row("agentic_send_post", REPLY, judge, SEND_POST, SHOWN, READ_ONLY)
    assert (result.status, result.accuracy, judge.prompts) == ("rule_zero", 0.0, [])
    assert result.note == ("count(threads_create_post)==1: fail (0)")
    assert result.actions is not None and result.actions["status"] == "failed_writes"
    assert result.actions["tool_call_rules"] == {
        "count('mcp__threads__create_post') == 1": "fail (0 vs 1)"
    }
    assert result.metrics["must_contain_failed"] == 1


def test_send_post_whose_post_misses_the_context_fails_its_quality() -> None:
    # "Happy Monday everyone": happy, monday, everyone; none in the context: 0 shared
    judge = Judge({"score": 3})
    result = row(
        "agentic_send_post", REPLY, judge, SEND_POST, SHOWN, posted("Happy Monday everyone")
    )
    assert (result.status, result.accuracy, judge.prompts) == ("rule_zero", 0.0, [])
    assert result.note == "addresses_context: fail (0 shared)"
    assert result.actions is not None and result.actions["status"] == "failed_quality"


def test_without_actions_nothing_is_checked() -> None:
    # a long-context row: the same rules on the instance, no run: judged as before
    judge = Judge(UNIFIED_AT_8)
    result = row("agentic_send_post", REPLY, judge, SEND_POST, SHOWN, None)
    assert result.status == "judged" and result.actions is None
    assert result.accuracy == pytest.approx(80.0)
    assert "tool_call_rules_pass" not in result.metrics


def test_the_output_quality_verifiers_worked_by_hand() -> None:
    def quality(task_type: str, inst: dict[str, Any], text: str, run: dict[str, Any]) -> Any:
        return check_actions(TASK_TYPES[task_type].verifier, inst, text, run).output_quality.results

    # cross-app repost: no shared hashtag; caption tokens {sourdough, crust, crumb} vs
    # {sourdough, crust, tonight}: 2 of 4 -> jaccard 0.5 >= 0.3
    source = {"caption": "Sourdough crust and crumb", "hashtags": ["#bread"]}
    caption = {"caption": "sourdough crust tonight"}
    repost = actions(
        [call("instagram_create_post", caption)],
        [write("instagram_create_post", caption, caption["caption"])],
    )
    inst = {"source_post": source, "target_app": "instagram"}
    assert quality("agentic_cross_app_repost", inst, "", repost) == (("references_source", "pass"),)
    # the verifier's own reading, top-level `caption` / `hashtags`, is read too: a
    # shared #bread passes whatever the words
    record = write("instagram_create_post", {"caption": "x"})
    record["event"] = {"caption": "nothing alike", "hashtags": ["#Bread"]}
    tagged = actions([call("instagram_create_post", {"caption": "x"})], [record])
    assert quality("agentic_cross_app_repost", inst, "", tagged) == (("references_source", "pass"),)
    # trending alert: two distinct hashtags and 6+ content tokens
    alert = "Trending now: #sourdough and #bakeoff, both close to your weekend baking habit"
    assert quality("agentic_trending_alert", {}, alert, READ_ONLY) == (
        ("named_>=2_trending_hashtags", "pass"),
    )
    assert quality("agentic_trending_alert", {}, "#sourdough is trending", READ_ONLY) == (
        ("named_>=2_trending_hashtags", "fail (1 hashtags)"),
    )
    # daily catch-up: two bullets, and one sentence over 20 characters: max(2, 1) < 3
    catchup = "- Ana posted\n- Ben replied\nNothing else of note happened today."
    assert quality("agentic_proactive_daily_catchup", {}, catchup, READ_ONLY) == (
        ("surfaced_>=3_items", "fail (2)"),
    )
    # community post: no verifier
    assert quality("agentic_community_post", {}, "", READ_ONLY) == ()


# --- proactive rows ----------------------------------------------------------------------

PROACTIVE_REPLY = json.dumps(
    {
        "should_act": False,
        "action_class": "stay_silent",
        "content": "",
        "reasoning": "The user is in an active sensitive-event window; not the moment.",
    }
)
DIMS_AT_10 = {
    "trigger_detection_correctness": 10,
    "preference_alignment": 10,
    "avoid_overpersonalization": 10,
    "voice_match": 10,
    "restraint_justification": 10,
    "negative_leakage": False,
    "stale_preference_use": False,
}
MESSAGE = {"message": "thinking of you"}


def restrain_fields() -> dict[str, Any]:
    return {
        "expected_behavior": "restrain",
        "trigger_evidence": {"app": "threads", "summary": "an active sensitive-event window"},
    }


def test_a_restraint_row_with_a_write_scores_zero_without_a_judge() -> None:
    judge = Judge(DIMS_AT_10)
    run = actions([call("chatbot_send_message", MESSAGE)], [write("chatbot_send_message", MESSAGE)])
    result = row(
        "restraint_sensitive_event_silence", PROACTIVE_REPLY, judge, restrain_fields(), {}, run
    )
    assert (result.status, result.accuracy, judge.prompts) == ("rule_zero", 0.0, [])
    assert result.note == "1 write(s) where silence is right (restrain)"
    assert result.actions is not None and result.actions["status"] == "failed_writes"


def test_a_restraint_row_whose_write_failed_is_judged() -> None:
    # the refused message changed nothing: silence kept; 50 / 50 -> 100
    judge = Judge(DIMS_AT_10)
    run = actions([call("chatbot_send_message", MESSAGE, "not allowed: read_only")], [])
    result = row(
        "restraint_sensitive_event_silence", PROACTIVE_REPLY, judge, restrain_fields(), {}, run
    )
    assert (result.status, result.accuracy, len(judge.prompts)) == ("judged", 100.0, 1)
    assert result.actions is not None and result.actions["writes"] == 0


def test_an_act_row_records_its_rules_and_is_judged() -> None:
    # the authors' proactive instances forbid DMs; a DM sent is recorded as the rule's
    # failure and, as their runner, changes no score: 50 / 50 -> 100
    fields = {
        "expected_behavior": "act",
        "trigger_evidence": {"app": "facebook"},
        "tool_call_rules": ["count('facebook_send_dm') == 0"],
    }
    dm = {"recipient_id": "friend_1", "message": "congrats!"}
    run = actions([call("facebook_send_dm", dm)], [write("facebook_send_dm", dm, "congrats!")])
    reply = json.dumps(
        {"should_act": True, "content": "Ana posted her new job", "evidence_cited": "x"}
    )
    result = row("proactive_close_friend_update", reply, Judge(DIMS_AT_10), fields, {}, run)
    assert (result.status, result.accuracy) == ("judged", 100.0)
    assert result.metrics["tool_call_rules_fail"] == 1
    assert result.actions is not None
    assert result.actions["tool_call_rules"] == {"count('facebook_send_dm') == 0": "fail (1 vs 0)"}


# --- through the grader, and the load ------------------------------------------------------


def test_the_score_records_the_checks_and_the_grader_reads_the_reply() -> None:
    seen: list[list[ChatMessage]] = []

    def answer(messages: list[ChatMessage]) -> str:
        seen.append(messages)
        return json.dumps(UNIFIED_AT_8)

    metadata = row_metadata(
        "agentic_send_post", SEND_POST, "105:0001:send_post",
        {SHOWN_KEY: SHOWN, "actions": posted(CAPTION)},
    )  # fmt: skip
    asked = replied(metadata, REPLY)
    grader = mock_model(answer, "mockllm/grader")
    score = score_judged(asked, grader)
    meta = score.metadata or {}
    assert score.value == pytest.approx(0.8)
    assert meta["actions_checked"]["status"] == "ok"
    assert meta["row_metrics"]["output_quality_passed"] == 2
    assert len(seen) == 1  # one unified judge call
    assert all(SUMMARY in m[0].text and CAPTION not in m[0].text for m in seen)

    asked.metadata["actions"] = READ_ONLY
    missed = score_judged(asked, grader)
    assert missed.value == 0.0
    assert missed.explanation == (
        "pr_combined_personalization_score -> 0.0 on 0-100 (rule_zero): "
        "count(threads_create_post)==1: fail (0)"
    )
    assert len(seen) == 1  # no further judge call


def test_a_folder_with_a_rule_no_check_reads_stops_the_load(tmp_path: Path) -> None:
    generate(tmp_path, personas=1, queries_per_type=1)
    (csv_path,) = tmp_path.glob("benchmark/*/queries.csv")
    text = csv_path.read_text(encoding="utf-8")
    assert "count('" in text
    csv_path.write_text(text.replace("count('", "count(", 1), encoding="utf-8")
    with pytest.raises(PersonaMemDataError) as error:
        personamem_v3(data_dir=str(tmp_path))
    message = str(error.value)
    assert str(csv_path) in message and "field `tool_call_rules`" in message
    assert "\n" not in message


def write_arguments(task_type: str, shown: Mapping[str, Any]) -> dict[str, str]:
    """The write a generated row asks for, its text from the fields the model saw."""
    if task_type == "agentic_send_post":  # a T13-kind row's narration, a T12-kind's seed
        return {"caption": shown.get("context") or shown["update"]}
    if task_type == "agentic_cross_app_repost":
        return {"caption": shown["source_post"]["caption"]}
    return {"recipient_id": shown["sender_id"], "message": shown["inbound_message"]}


WRITE_TYPES: dict[str, str] = {
    "agentic_send_post": "{app}_create_post",
    "agentic_cross_app_repost": "{app}_create_post",
    "agentic_auto_reply": "{app}_send_dm",
}
"""Task type -> its write's tool on an app."""


@pytest.mark.parametrize("task_type", sorted(WRITE_TYPES))
def test_generated_write_rows_pass_with_the_write_on_their_app(
    task_type: str, tmp_path: Path
) -> None:
    # the generator's rows: the write asked for is on the row's own target app. The
    # write there (its text the row's own context, source caption or inbound message)
    # passes the rule, the final state and the verifier: judged, every dim at 3; the
    # same write on another app leaves the required one missing: 0, no judge call
    generate(tmp_path, personas=1, queries_per_type=1)
    (sample,) = [
        s
        for s in personamem_v3(data_dir=str(tmp_path)).dataset
        if s.metadata and s.metadata["task_type"] == task_type
    ]
    metadata = dict(sample.metadata or {})
    shown = metadata[SHOWN_KEY]
    app = shown["target_app"]
    other = next(a for a in ("instagram", "facebook", "threads") if a != app)
    tool = WRITE_TYPES[task_type]
    args = write_arguments(task_type, shown)
    text = args.get("caption") or args["message"]
    prompts: list[str] = []

    def grade(on: str) -> Score:
        name = tool.format(app=on)
        run = actions([call(name, args)], [write(name, args, text)])
        asked = replied({**metadata, "actions": run}, REPLY)

        def answer(messages: list[ChatMessage]) -> str:
            prompts.append(messages[0].text)
            return json.dumps(UNIFIED_AT_8)

        return score_judged(asked, mock_model(answer, "mockllm/grader"))

    right = grade(app)
    checked = (right.metadata or {})["actions_checked"]
    assert checked["status"] == "ok" and isinstance(right.value, float) and right.value > 0
    assert checked["final_state"] and {result for _, result in checked["final_state"]} == {"pass"}
    assert set(checked["tool_call_rules"].values()) == {"pass"}
    # the judge reads the reply, not the write (whose text the authors' evidence holds as
    # the query line, `_query_text_for`)
    judged_texts = [p.split("## Response to judge\n", 1)[1] for p in prompts]
    assert prompts and all(t.startswith(SUMMARY) and text not in t for t in judged_texts)
    judged = len(prompts)
    wrong = grade(other)
    assert wrong.value == 0.0 and len(prompts) == judged
    assert (wrong.metadata or {})["actions_checked"]["status"] == "failed_writes"
