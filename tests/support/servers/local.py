"""Serving a request handler on a free loopback port for the length of a test, for the
local stand-ins of the Hugging Face hub, a vLLM server and Anthropic's API."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that logs nothing and answers JSON with `send_json`."""

    # headers and body go out as two writes: without TCP_NODELAY each answer waits
    # for the client's delayed ACK (about 40 ms on Linux)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve `handler` on 127.0.0.1 in a thread; yield its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
