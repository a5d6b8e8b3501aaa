"""A local stand-in for Anthropic's Messages API, for tests: the real `anthropic` client
(through Inspect's `anthropic/` provider and `model_base_url`) sends its requests here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from support.servers.local import QuietHandler, serve

USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "cache_read_input_tokens": 7,
    "cache_creation_input_tokens": 3,
}
"""What every answer reports, so that the summed usage in the log can be checked."""


@contextmanager
def serve_messages(reply: str, requests: list[dict[str, Any]]) -> Iterator[str]:
    """Answer every `POST /v1/messages` (non-streaming) with `reply`; yield the base URL.
    Each request body is appended to `requests`."""

    class Handler(QuietHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            answer = {
                "id": f"msg_{len(requests)}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [{"type": "text", "text": reply}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": USAGE,
            }
            self.send_json(200 if self.path == "/v1/messages" else 404, answer)

    with serve(Handler) as url:
        yield url
