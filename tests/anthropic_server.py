"""A local stand-in for Anthropic's Messages API, for tests: the real `anthropic` client
(through Inspect's `anthropic/` provider and `model_base_url`) sends its requests here."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

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
            data = json.dumps(answer).encode()
            self.send_response(200 if self.path == "/v1/messages" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
