"""The write tools: the event each makes and records on an `AppStore` (`WRITES`, by the
action the catalogue names), and what it answers.

As the authors' (`evaluation/mcp_servers/_social_server.py`@1549bc98,
`chatbot_mcp_server.py`@00c8a9f0): a caption within the app's limit (`CAPTION_LIMITS`),
a reaction from the app's whitelist (`REACTIONS`), `send_post_to_app` recorded as
`{target_app}_create_post` on the target app. Where ours differs: `send_dm` resolves its
recipient among the authors of the app's visible events (theirs reads the profile's
`friends`, which is scorer-side here); an empty caption, an unknown reaction or post is
an error (`AppToolError`, with the authors' message), not an `{"error": ...}` result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from inspect_personamem.datasets.v3.agent.catalogue import (
    CAPTION_LIMITS,
    REACTIONS,
    AppToolError,
    social_target,
)
from inspect_personamem.datasets.v3.agent.store import AppStore, Run

HASHTAG = re.compile(r"#\w+")


def _create_post(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    caption, media = _caption(args["caption"]), args["media_refs"]
    if len(caption) > CAPTION_LIMITS[app]:
        raise AppToolError(f"caption exceeds {app} limit of {CAPTION_LIMITS[app]} chars")
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": HASHTAG.findall(caption),
        "content_type": "image" if media else "text",
        "content": {"caption": caption, "media_refs": media or [], "alt_text": args["alt_text"]},
        "author_id": "self",
        "relationship": "self",
        "is_self_authored": True,
        "is_dm": False,
        "interaction_format": {
            "app": app.capitalize(),
            "action": "posted_photo" if media else "posted_text",
        },
    }
    record = store.write(f"{app}_create_post", app, args, event)
    return {"post_id": record["synthetic_event_id"], "created_at": record["timestamp_ms"]}


def _react(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    post_id, reaction = args["post_id"], args["reaction_type"]
    if reaction not in REACTIONS[app]:
        valid = sorted(REACTIONS[app])
        raise AppToolError(f"reaction '{reaction}' not allowed on {app}; valid: {valid}")
    target = store.post(app, post_id)
    negative = reaction == "not_interested"
    event = {
        "source_interaction_type": "explicit_negative" if negative else "explicit_positive",
        "source_hashtags": target.get("source_hashtags", []),
        "content_type": "text",
        "content": {"caption": f"reaction={reaction} on post={post_id}"},
        "author_id": "self",
        "is_self_authored": False,
        "is_dm": False,
        "interaction_format": {"app": app.capitalize(), "action": f"reacted_{reaction}"},
        "reacted_to_post_id": post_id,
    }
    record = store.write(f"{app}_react", app, args, event)
    return {"ok": True, "reaction_id": record["synthetic_event_id"]}


def _comment(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    post_id, text = args["post_id"], args["text"]
    if not text.strip():
        raise AppToolError("comment text must be non-empty")
    target = store.post(app, post_id)
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": target.get("source_hashtags", []),
        "content_type": "text",
        "content": {"caption": text},
        "author_id": "self",
        "is_self_authored": True,
        "is_dm": False,
        "interaction_format": {"app": app.capitalize(), "action": "commented"},
        "commented_on_post_id": post_id,
    }
    record = store.write(f"{app}_comment", app, args, event)
    return {"ok": True, "comment_id": record["synthetic_event_id"]}


def _send_dm(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    recipient, message = args["recipient_id"], args["message"]
    if not message.strip():
        raise AppToolError("message must be non-empty")
    relationship = store.relationship(app, recipient)
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": [],
        "content_type": "text",
        "content": {"caption": message},
        "author_id": "self",
        "recipient_id": recipient,
        "relationship": relationship or "unknown",
        "is_self_authored": True,
        "is_dm": True,
        "interaction_format": {"app": app.capitalize(), "action": "sent_dm"},
    }
    record = store.write(f"{app}_send_dm", app, args, event)
    return {
        "ok": True,
        "message_id": record["synthetic_event_id"],
        "recipient_resolved": relationship is not None,
    }


def _send_message(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    if not args["message"]:
        raise AppToolError("empty message")
    event = {
        "author_id": "self",
        "content": {"caption": args["message"]},
        "interaction_format": {"app": "Chatbot", "action": "user_message"},
        "is_self_authored": True,
    }
    record = store.write("chatbot_send_message", "chatbot", args, event)
    return {"ok": True, "message_id": record["synthetic_event_id"]}


def _send_post_to_app(store: AppStore, app: str, args: dict[str, Any]) -> Any:
    target = social_target(args["target_app"], "instagram|facebook|threads")
    caption, media = _caption(args["caption"]), args["media_refs"]
    event = {
        "source_interaction_type": "explicit_positive",
        "source_hashtags": HASHTAG.findall(caption),
        "content_type": "image" if media else "text",
        "content": {"caption": caption, "media_refs": media or []},
        "author_id": "self",
        "is_self_authored": True,
        "is_dm": False,
        "interaction_format": {"app": target.capitalize(), "action": "posted_via_chatbot"},
        "dispatched_from": "chatbot",
    }
    record = store.write(f"{target}_create_post", target, args, event)
    return {"ok": True, "post_id": record["synthetic_event_id"], "target_app": target}


WRITES: Final[Mapping[str, Run]] = {
    "create_post": _create_post,
    "react": _react,
    "comment": _comment,
    "send_dm": _send_dm,
    "send_message": _send_message,
    "send_post_to_app": _send_post_to_app,
}
"""Each write tool's implementation, by its action (`ToolSpec.action`)."""


def _caption(caption: str) -> str:
    if not caption.strip():
        raise AppToolError("caption must be non-empty")
    return caption
