"""The output-quality verifiers of the authors' agentic runner
(tasks/agentic_verifiers.py@25a27933 `OUTPUT_VERIFIERS`): per agentic task type, checks
of its reply and the writes an agent run left. A task type holds its own
(`task_types`: none for `agentic_community_post`, whose registry key there is
`agentic_user_tone_post`, nor for a proactive type: no check, as their
`run_output_verifier` gives an unknown type); `scoring.verifiers.check_actions` runs it.

The verifiers read a write's text and hashtags from the event's `caption` / `text` /
`body` and `hashtags` (theirs), and else from `content.caption` and `source_hashtags`,
where the authors' own servers write them (_social_server.py@1549bc98 `create_post`):
read literally, their verifier finds no caption in any of their runs' writes, and every
send_post or cross-app repost fails its check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final


@dataclass(frozen=True)
class Traced:
    """One counted tool call: the registry's tool name, the arguments searched, and
    whether it wrote."""

    name: str
    args: Mapping[str, Any]
    written: bool = False


class Checks:
    """Named checks, each `results` entry (name, "pass" or "fail (...)"), counted."""

    results: tuple[tuple[str, str], ...]

    @property
    def passed(self) -> int:
        return sum(result == "pass" for _, result in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed


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
class Quality(Checks):
    """A verifier's checks (the authors' `details`)."""

    results: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def _check(name: str, ok: bool, why: str = "") -> tuple[str, str]:
    return (name, "pass" if ok else ("fail" + (f" ({why})" if why else "")))


Verifier = Callable[[Mapping[str, Any], str, Sequence[Traced]], Quality]


def send_post(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    posts = _of(writes, f"{_text(inst.get('target_app'))}_create_post")
    if not posts:
        return Quality(
            (("post_on_target_app", "fail (no post)"), ("addresses_context", "fail (no post)"))
        )
    # a T13-kind row's narration, else a T12-kind row's seed (the runner's read)
    wanted = content_tokens(_text(inst.get("context") or inst.get("update")))
    shared = wanted & content_tokens(_captions(posts))
    ok = len(shared) >= 2 or len(wanted) <= 3
    return Quality(
        (
            _check("post_on_target_app", True),
            _check("addresses_context", ok, f"{len(shared)} shared"),
        )
    )


def cross_app_repost(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
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


def auto_reply(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
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


def vague_refind(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    topic = _text(inst.get("topic"))
    wanted = content_tokens(topic)
    if not wanted:
        return Quality((("vacuous_topic", "pass"),))
    ok = bool(wanted & content_tokens(text)) or topic.lower() in text.lower()
    return Quality((_check("response_mentions_topic", ok),))


def dm_digest(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    lower = text.lower()
    named = inst.get("dm_correspondents")
    if isinstance(named, list) and named:
        hits = sum(str(name).lower() in lower for name in named)
        return Quality((_check("named_>=2_correspondents", hits >= 2, str(hits)),))
    friends, mentions = len(_FRIEND.findall(lower)), len(_MENTION.findall(text))
    capitalized = sum(w[:1].isupper() and len(w) > 2 and w[1:].islower() for w in text.split())
    ok = len(content_tokens(text)) >= 25 and (friends >= 1 or mentions >= 1 or capitalized >= 2)
    return Quality((_check("specific_summary", ok),))


def group_dm_summary(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
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


def daily_catchup(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    bullets = sum(line[0] in _BULLETS or line.startswith(">") for line in lines)
    sentences = sum(len(part.strip()) > 20 for part in _SENTENCE_END.split(text))
    items = max(bullets, sentences)
    return Quality((_check("surfaced_>=3_items", items >= 3, str(items)),))


def trending_alert(inst: Mapping[str, Any], text: str, writes: Sequence[Traced]) -> Quality:
    tags = len(set(_HASHTAG.findall(text.lower())))
    ok = tags >= 2 and len(content_tokens(text)) >= 6
    return Quality((_check("named_>=2_trending_hashtags", ok, f"{tags} hashtags"),))
