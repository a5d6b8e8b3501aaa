"""What the authors' agentic runner checks of an agent's run beside the judge: the row's
`tool_call_rules` over the tools it called, its `final_state_expected` over the writes it
left, the per-task output-quality verifier over its reply and writes, and the status
these give the row (tasks/agentic_tasks.py@0628f60d `_dispatch_and_score`, mcp_agent
mode; tasks/agentic_verifiers.py@25a27933). Pure functions over the sample's
`metadata["actions"]` (the agent setting's record: `calls`, each `{tool, arguments,
error}`, and `writes`, each the authors' writes.jsonl record plus its `arguments`).

As the authors' runner:

- only an agent run is checked: a long-context or memory run (no `actions`) has no
  tools, and their `llm_longctx` branch returns before any rule, overlay or verifier
  (its `tool_intended` field is "not enforced": we read it nowhere either);
- `tool_call_rules` are recorded (passes and fails) and change no score;
- `final_state_expected`'s `must_contain_count` failing where it asks for a write gives
  the status `failed_writes`, else a failed output-quality check `failed_quality`; either
  scores the row 0 (`rules.FAILED_STATUSES`; aggregate_eval's `_accuracy_value`).

Where ours differs:

- The rules are counted over the tools the agent called successfully, each call that
  wrote counted as its write record (`tool` as the overlay records it, `args` its
  `event`, as the authors' synthesized trace; `chatbot_send_post_to_app` so counts as
  `{app}_create_post`). The authors' Claude Code runs expose no calls, so their trace is
  the writes alone and a read rule (`count('instagram_list_dms') >= 1`) cannot pass
  there; here it is counted. A call that failed changed nothing and is not counted.
- A tool named as Claude Code names an MCP tool (`mcp__threads__create_post`, what the
  authors' prompts and `tool_intended` say) is read as the registry's name
  (`threads_create_post`); `__any_write__` (their E6 sentinel, "no write tools called",
  mcp_tool_registry.py@f0cde101) counts every write, where their parser counts a tool of
  that literal name (none, so it always passes).
- A rule neither of their two shapes reads (`count('tool') OP N`, `any|none('text')`) is
  an error naming the rule (`ActionRuleError`), where theirs records `parse_error` and
  counts it neither passed nor failed; the whole rule must match, where their
  `re.match` ignores what follows a matching start.
- The verifiers read a write's text and hashtags from the event's `caption` / `text` /
  `body` and `hashtags` (theirs), and else from `content.caption` and
  `source_hashtags`, where the authors' own servers write them (_social_server.py@
  1549bc98 `create_post`): read literally, their verifier finds no caption in any of
  their runs' writes, and every send_post or cross-app repost fails its check.
- `final_state_expected` may say `writes: [tool, ...]` (the E6 builders' shape, which
  their `_check_final_state` does not read): here, exactly those writes (each listed
  tool as many times as listed, and no other write); `writes: []` asks for none. Any
  other key is an error.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

ANY_WRITE: Final = "__any_write__"
"""The sentinel of "any write tool" in `tool_call_rules`."""
STATUS_OK: Final = "ok"


class ActionRuleError(ValueError):
    """A `tool_call_rules` or `final_state_expected` entry no check here reads."""


@dataclass(frozen=True)
class Traced:
    """One counted tool call: the registry's tool name, the arguments searched, and
    whether it wrote."""

    name: str
    args: Mapping[str, Any]
    written: bool = False


def tool_name(name: str) -> str:
    """The registry's name of a tool: `mcp__{server}__{tool}` (Claude Code's) as
    `{server}_{tool}`, or `{tool}` where it already starts with its server's name."""
    parts = name.split("__")
    if len(parts) == 3 and parts[0] == "mcp" and parts[1] and parts[2]:
        server, tool = parts[1], parts[2]
        return tool if tool.startswith(f"{server}_") else f"{server}_{tool}"
    return name


def _records(actions: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = actions.get(key) or []
    return [item for item in value if isinstance(item, Mapping)]


SEND_POST_TO_APP: Final = "chatbot_send_post_to_app"
"""The one write recorded under another tool's name, `{target_app}_create_post`
(mcp_tool_registry.py@f0cde101's note on it)."""


def made(name: str, record: Mapping[str, Any]) -> bool:
    """Whether a successful call of `name` is the one that wrote `record`: the record
    names its tool (`chatbot_send_post_to_app` writes `{app}_create_post`)."""
    tool = str(record.get("tool") or "")
    return name == tool or (name == SEND_POST_TO_APP and tool.endswith("_create_post"))


def trace(actions: Mapping[str, Any]) -> list[Traced]:
    """The calls the rules count (see the module docstring): each successful call, in
    order, the one that made the next write record counted as that record (a write
    call that succeeded made one record, in call order). A write no successful call
    made is an error: its call would go uncounted."""
    writes = _records(actions, "writes")
    out: list[Traced] = []
    done = 0
    for call in _records(actions, "calls"):
        if call.get("error") is not None:
            continue
        name = tool_name(str(call.get("tool") or ""))
        if done < len(writes) and made(name, writes[done]):
            out.append(Traced(str(writes[done]["tool"]), _event(writes[done]), True))
            done += 1
        else:
            out.append(Traced(name, call.get("arguments") or {}))
    if done < len(writes):
        raise ActionRuleError(
            f"actions: write {done} ({writes[done].get('tool')!r}) has no successful call "
            "of its tool"
        )
    return out


def _event(record: Mapping[str, Any]) -> Mapping[str, Any]:
    event = record.get("event")
    return event if isinstance(event, Mapping) else {}


_COUNT: Final = re.compile(r"\s*count\('([^']+)'\)\s*(==|>=|<=|>|<)\s*(\d+)\s*")
_SEARCH: Final = re.compile(r"\s*(any|none)\('([^']+)'\)\s*")
_COMPARE: Final[Mapping[str, Callable[[int, int], bool]]] = {
    "==": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}


def rule_problem(rule: object) -> str:
    """Why a `tool_call_rules` entry cannot be checked, in words; empty where it can."""
    if not isinstance(rule, str):
        return f"{rule!r} is not a string"
    if _COUNT.fullmatch(rule) or _SEARCH.fullmatch(rule):
        return ""
    return f"{rule!r} is neither count('tool') OP N nor any|none('text')"


def check_tool_call_rules(rules: Sequence[object], calls: Sequence[Traced]) -> dict[str, str]:
    """`_check_tool_call_rules`: each rule -> "pass" or "fail (...)" over `calls`;
    `count` counts the calls of a tool (`__any_write__`: the calls that wrote), `any` /
    `none` ask whether some call's arguments, as JSON lower-cased, hold the text."""
    names = Counter(call.name for call in calls)
    out: dict[str, str] = {}
    for rule in rules:
        problem = rule_problem(rule)
        if problem:
            raise ActionRuleError(f"field `tool_call_rules`: {problem}")
        assert isinstance(rule, str)
        counted = _COUNT.fullmatch(rule)
        if counted:
            tool, op, want = tool_name(counted[1]), counted[2], int(counted[3])
            have = names[tool] if tool != ANY_WRITE else sum(call.written for call in calls)
            ok = _COMPARE[op](have, want)
            out[rule] = "pass" if ok else f"fail ({have} vs {want})"
            continue
        searched = _SEARCH.fullmatch(rule)
        assert searched is not None
        text = searched[2].lower()
        hit = any(text in json.dumps(dict(call.args)).lower() for call in calls)
        out[rule] = "pass" if hit == (searched[1] == "any") else "fail"
    return out


# --- final_state_expected (`_check_final_state`) --------------------------------------

FINAL_STATE_KEYS: Final = ("must_contain_count", "must_not_contain", "writes")


def final_state_problem(expected: object) -> str:
    """Why a `final_state_expected` cannot be checked, in words; empty where it can."""
    if not isinstance(expected, Mapping):
        return f"{expected!r} is not an object"
    unknown = sorted(set(expected) - set(FINAL_STATE_KEYS))
    if unknown:
        return f"key {unknown[0]!r} is none of {', '.join(FINAL_STATE_KEYS)}"
    counts = expected.get("must_contain_count") or {}
    if not isinstance(counts, Mapping) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in counts.values()
    ):
        return "`must_contain_count` is not an object of tool -> count"
    for key in ("must_not_contain", "writes"):
        listed = expected.get(key) or []
        if not isinstance(listed, list) or not all(isinstance(t, str) for t in listed):
            return f"`{key}` is not a list of tool names"
    return ""


class _Checks:
    """Named checks, each `results` entry (name, "pass" or "fail (...)"), counted."""

    results: tuple[tuple[str, str], ...]

    @property
    def passed(self) -> int:
        return sum(result == "pass" for _, result in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed


@dataclass(frozen=True)
class FinalState(_Checks):
    """`_check_final_state`'s report: each rule's result, the failures of the writes it
    asks for (`must_contain_failed`) and of those it forbids, and whether it asks for a
    write at all (`requires_write`: only then does a failure fail the row)."""

    results: tuple[tuple[str, str], ...]
    must_contain_failed: int
    must_not_contain_failed: int
    requires_write: bool


def check_final_state(expected: Mapping[str, Any], writes: Sequence[Traced]) -> FinalState:
    """The writes left against `expected` (see the module docstring for `writes`)."""
    problem = final_state_problem(expected)
    if problem:
        raise ActionRuleError(f"field `final_state_expected`: {problem}")
    have = Counter(write.name for write in writes)
    listed = Counter(tool_name(tool) for tool in expected.get("writes") or [])
    wanted = {tool_name(t): n for t, n in (expected.get("must_contain_count") or {}).items()}
    results: list[tuple[str, str]] = []
    contain_failed = forbid_failed = 0
    for tool, want in [*wanted.items(), *listed.items()]:
        ok = have[tool] == want
        results.append((f"count({tool})=={want}", "pass" if ok else f"fail ({have[tool]})"))
        contain_failed += not ok
    forbidden = [(tool_name(t), have[tool_name(t)]) for t in expected.get("must_not_contain") or []]
    if "writes" in expected:
        others = sum(n for tool, n in have.items() if tool not in listed)
        forbidden.append(("writes other than " + (", ".join(listed) or "none"), others))
    for what, n in forbidden:
        results.append((f"count({what})==0", "pass" if n == 0 else f"fail ({n})"))
        forbid_failed += n != 0
    return FinalState(tuple(results), contain_failed, forbid_failed, bool(wanted or listed))


# --- output quality (agentic_verifiers.py@25a27933) -----------------------------------

_STOPWORD_TEXT: Final = (
    "a an and are as at be but by do does for from has have in is it its of "
    "on or so that the their them they this to was were will with you your "
    "i me my we our us he she him her his hers what where when how why which "
    "than then there here some any all not no yes if just like"
)
_STOPWORDS: Final = frozenset(_STOPWORD_TEXT.split())
_PUNCT: Final = re.compile(r"[^a-z0-9\s]+")
_HASHTAG: Final = re.compile(r"#[a-z0-9_]+")
_FRIEND: Final = re.compile(r"\bfriend_\d+\b")
_MENTION: Final = re.compile(r"@\w+")
_SENTENCE_END: Final = re.compile(r"[.!?]+")
_BULLETS: Final = "-•*0123456789"


def content_tokens(text: str) -> set[str]:
    """`_tokens`: lower-cased words of letters only, punctuation as spaces, less the
    stopwords."""
    cleaned = _PUNCT.sub(" ", (text or "").lower())
    return {word for word in cleaned.split() if word.isalpha() and word not in _STOPWORDS}


def _tags(items: object) -> set[str]:
    listed = items if isinstance(items, list) else []
    return {str(item).lower().lstrip("#") for item in listed if item}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _of(writes: Sequence[Traced], suffix: str) -> list[Traced]:
    """`_writes_for`: the writes whose tool ends with `suffix`."""
    return [write for write in writes if write.name.endswith(suffix)]


def _caption(event: Mapping[str, Any]) -> object:
    content = event.get("content")
    nested = content.get("caption") if isinstance(content, Mapping) else None
    return event.get("caption") or event.get("text") or event.get("body") or nested


def _captions(writes: Sequence[Traced]) -> str:
    """`_captions_from_writes`, joined: each event's caption, else text, else body, else
    (ours) `content.caption`, where the authors' servers put it."""
    return " ".join(str(text) for w in writes if (text := _caption(w.args)))


def _written_tags(writes: Sequence[Traced]) -> set[str]:
    """`_hashtags_from_writes`: each event's `hashtags`, else (ours) `source_hashtags`."""
    tags = (w.args.get("hashtags") or w.args.get("source_hashtags") or [] for w in writes)
    return _tags([tag for listed in tags if isinstance(listed, list) for tag in listed])


@dataclass(frozen=True)
class Quality(_Checks):
    """A verifier's checks (the authors' `details`)."""

    results: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def _check(name: str, ok: bool, why: str = "") -> tuple[str, str]:
    return (name, "pass" if ok else ("fail" + (f" ({why})" if why else "")))


Verifier = Callable[[Mapping[str, Any], str, Sequence[Traced]], Quality]


def _send_post(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    posts = _of(writes, f"{_text(inst.get('target_app'))}_create_post")
    if not posts:
        return Quality(
            (("post_on_target_app", "fail (no post)"), ("addresses_context", "fail (no post)"))
        )
    wanted = content_tokens(_text(inst.get("context")))
    shared = wanted & content_tokens(_captions(posts))
    ok = len(shared) >= 2 or len(wanted) <= 3
    return Quality(
        (
            _check("post_on_target_app", True),
            _check("addresses_context", ok, f"{len(shared)} shared"),
        )
    )


def _cross_app_repost(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    posts = _of(writes, f"{_text(inst.get('target_app')) or 'threads'}_create_post")
    if not posts:
        return Quality((("repost_was_created", "fail (no post)"),))
    source = inst.get("source_post")
    source = source if isinstance(source, Mapping) else {}
    tags = len(_tags(source.get("hashtags")) & _written_tags(posts))
    words_a, words_b = (
        content_tokens(_text(source.get("caption"))),
        content_tokens(_captions(posts)),
    )
    union = words_a | words_b
    jaccard = len(words_a & words_b) / len(union) if union else 0.0
    ok = tags >= 1 or jaccard >= 0.3
    return Quality((_check("references_source", ok, f"h={tags}, t_jacc={jaccard:.2f}"),))


def _auto_reply(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    sent = _of(writes, f"{_text(inst.get('target_app'))}_send_dm")
    if not sent:
        return Quality(
            (("dm_was_sent", "fail (no DM in overlay)"), ("addresses_inbound", "fail (no DM)"))
        )
    inbound = content_tokens(_text(inst.get("inbound_message")))
    shared = inbound & content_tokens(_captions(sent) or text)
    ok = len(shared) >= 1 or len(inbound) <= 3
    return Quality(
        (_check("dm_was_sent", True), _check("addresses_inbound", ok, "no content-word overlap"))
    )


def _vague_refind(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    topic = _text(inst.get("topic"))
    wanted = content_tokens(topic)
    if not wanted:
        return Quality((("vacuous_topic", "pass"),))
    ok = bool(wanted & content_tokens(text)) or topic.lower() in text.lower()
    return Quality((_check("response_mentions_topic", ok),))


def _dm_digest(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    lower = text.lower()
    named = inst.get("dm_correspondents")
    if isinstance(named, list) and named:
        hits = sum(str(name).lower() in lower for name in named)
        return Quality((_check("named_>=2_correspondents", hits >= 2, str(hits)),))
    friends, mentions = len(_FRIEND.findall(lower)), len(_MENTION.findall(text))
    capitalized = sum(w[:1].isupper() and len(w) > 2 and w[1:].islower() for w in text.split())
    ok = len(content_tokens(text)) >= 25 and (friends >= 1 or mentions >= 1 or capitalized >= 2)
    return Quality((_check("specific_summary", ok),))


def _group_dm_summary(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    lower = text.lower()
    checks = [
        _check("no_unsolicited_send", not _of(writes, f"{_text(inst.get('target_app'))}_send_dm"))
    ]
    people = inst.get("participants")
    if isinstance(people, list) and people:
        hits = sum(str(person).lower() in lower for person in people)
        checks.append(_check(f"named_participants_>=2 (got {hits})", hits >= 2))
    else:
        checks.append(_check("nontrivial_summary", len(content_tokens(text)) >= 10))
    topics = _tags(inst.get("topic_hints"))
    if topics:
        hits = sum(topic in lower for topic in topics)
        checks.append(_check(f"covered_topics_>=2 (got {hits})", hits >= 2))
    return Quality(tuple(checks))


def _daily_catchup(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    bullets = sum(line[0] in _BULLETS or line.startswith(">") for line in lines)
    sentences = sum(len(part.strip()) > 20 for part in _SENTENCE_END.split(text))
    items = max(bullets, sentences)
    return Quality((_check("surfaced_>=3_items", items >= 3, str(items)),))


def _trending_alert(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    tags = len(set(_HASHTAG.findall(text.lower())))
    ok = tags >= 2 and len(content_tokens(text)) >= 6
    return Quality((_check("named_>=2_trending_hashtags", ok, f"{tags} hashtags"),))


OUTPUT_VERIFIERS: Final[Mapping[str, Verifier]] = {
    "agentic_send_post": _send_post,
    "agentic_cross_app_repost": _cross_app_repost,
    "agentic_auto_reply": _auto_reply,
    "agentic_vague_refind": _vague_refind,
    "agentic_dm_digest": _dm_digest,
    "agentic_group_dm_summary": _group_dm_summary,
    "agentic_proactive_daily_catchup": _daily_catchup,
    "agentic_trending_alert": _trending_alert,
}
"""`OUTPUT_VERIFIERS` for the task types `tasks.TASK_TYPES` has; none for
`agentic_community_post` (their registry keys T6 as `agentic_user_tone_post`) nor for a
proactive type: no check, as their `run_output_verifier` gives an unknown type."""


# --- the row ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionChecks:
    """An agent run's checks and the status they give its row (`ok`, `failed_writes`,
    `failed_quality`)."""

    tool_call_rules: Mapping[str, str]
    final_state: FinalState | None
    output_quality: Quality
    writes: int
    status: str

    def metrics(self) -> dict[str, object]:
        """The counts the authors' runner adds to a row's metrics."""
        state = self.final_state
        rules = self.tool_call_rules.values()
        return {
            "tool_call_rules_pass": sum(result == "pass" for result in rules),
            "tool_call_rules_fail": sum(result.startswith("fail") for result in rules),
            "final_state_rules_passed": state.passed if state else 0,
            "final_state_rules_failed": state.failed if state else 0,
            "must_contain_failed": state.must_contain_failed if state else 0,
            "must_not_contain_failed": state.must_not_contain_failed if state else 0,
            "output_quality_passed": self.output_quality.passed,
            "output_quality_failed": self.output_quality.failed,
        }

    def record(self) -> dict[str, object]:
        """What was checked, rule by rule, for the score's metadata."""
        return {
            "status": self.status,
            "writes": self.writes,
            "tool_call_rules": dict(self.tool_call_rules),
            "final_state": [list(r) for r in self.final_state.results]
            if self.final_state
            else None,
            "output_quality": [list(d) for d in self.output_quality.results],
        }


def rules_problem(fields: Mapping[str, Any]) -> str:
    """What of a row's `tool_call_rules` and `final_state_expected` no check reads, in
    words naming the field; empty where they can all be checked."""
    rules = fields.get("tool_call_rules")
    if rules is not None:
        if not isinstance(rules, list):
            return "field `tool_call_rules`: not a list"
        for rule in rules:
            if problem := rule_problem(rule):
                return f"field `tool_call_rules`: {problem}"
    expected = fields.get("final_state_expected")
    if expected is not None and (problem := final_state_problem(expected)):
        return f"field `final_state_expected`: {problem}"
    return ""


def check_actions(
    task_type: str, instance: Mapping[str, Any], response: str, actions: Mapping[str, Any]
) -> ActionChecks:
    """An agent run's checks (`_dispatch_and_score`, mcp_agent): `instance` the row's
    fields, `response` the reply's judged text, `actions` the run's record."""
    calls = trace(actions)
    writes = [call for call in calls if call.written]
    rules = instance.get("tool_call_rules") or []
    if not isinstance(rules, list):
        raise ActionRuleError(f"field `tool_call_rules`: {rules!r} is not a list")
    reported = check_tool_call_rules(rules, calls)
    expected = instance.get("final_state_expected")
    state = check_final_state(expected, writes) if expected else None
    verifier = OUTPUT_VERIFIERS.get(task_type)
    quality = verifier(instance, response, writes) if verifier else Quality()
    status = STATUS_OK
    if state is not None and state.requires_write and state.must_contain_failed:
        status = "failed_writes"
    elif quality.failed:
        status = "failed_quality"
    return ActionChecks(reported, state, quality, len(writes), status)
