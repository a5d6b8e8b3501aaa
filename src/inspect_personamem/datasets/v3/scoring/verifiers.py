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
  scores the row 0 (`reading.scale.FAILED_STATUSES`; aggregate_eval's `_accuracy_value`).

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
- The output-quality verifiers (`rules.quality`) read a write's text where the authors'
  servers put it (that module's docstring).
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
from dataclasses import dataclass
from typing import Any, Final

from inspect_personamem.datasets.v3.rules.quality import Checks, Quality, Traced, Verifier

ANY_WRITE: Final = "__any_write__"
"""The sentinel of "any write tool" in `tool_call_rules`."""
STATUS_OK: Final = "ok"


class ActionRuleError(ValueError):
    """A `tool_call_rules` or `final_state_expected` entry no check here reads."""


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


@dataclass(frozen=True)
class FinalState(Checks):
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


# --- the row ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionChecks:
    """An agent run's checks and the status they give its row (`ok`, `failed_writes`,
    `failed_quality`), with why where it fails."""

    tool_call_rules: Mapping[str, str]
    final_state: FinalState | None
    output_quality: Quality
    writes: int
    status: str
    why: str = ""

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
    verifier: Verifier | None,
    instance: Mapping[str, Any],
    response: str,
    actions: Mapping[str, Any],
) -> ActionChecks:
    """An agent run's checks (`_dispatch_and_score`, mcp_agent): `verifier` the task
    type's output-quality verifier (None: no check), `instance` the row's fields,
    `response` the reply's judged text, `actions` the run's record.

    The status is the agentic dispatch's (`failed_writes`, `failed_quality`), else, on a
    proactive row whose `expected_behavior` is `restrain`, `failed_writes` for any
    write (ours: the authors' polarity note says "Acting at all is wrong here", and
    their agent setting gives proactive rows read-only tools, so their runner never
    meets a write)."""
    calls = trace(actions)
    writes = [call for call in calls if call.written]
    rules = instance.get("tool_call_rules") or []
    if not isinstance(rules, list):
        raise ActionRuleError(f"field `tool_call_rules`: {rules!r} is not a list")
    reported = check_tool_call_rules(rules, calls)
    expected = instance.get("final_state_expected")
    state = check_final_state(expected, writes) if expected else None
    quality = verifier(instance, response, writes) if verifier else Quality()
    status, why = STATUS_OK, ""
    if state is not None and state.requires_write and state.must_contain_failed:
        status = "failed_writes"
    elif quality.failed:
        status = "failed_quality"
    if status != STATUS_OK:
        failed = state if status == "failed_writes" else None
        results = (failed or quality).results
        why = "; ".join(f"{name}: {result}" for name, result in results if result != "pass")
    elif instance.get("expected_behavior") == "restrain" and writes:
        status = "failed_writes"
        why = f"{len(writes)} write(s) where silence is right (restrain)"
    return ActionChecks(reported, state, quality, len(writes), status, why)
