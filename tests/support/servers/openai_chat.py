"""A local stand-in of OpenAI's chat completions, directly and through its Batch API.

The real `openai` client (through Inspect's `openai/` provider and its batcher) sends
here: `POST /v1/chat/completions` answers at once; under `--batch` Inspect uploads a
JSONL file of requests (`POST /v1/files`), creates a batch of it (`POST /v1/batches`),
polls it (`GET /v1/batches/{id}`) and downloads the output file
(`GET /v1/files/{id}/content`). A batch completes when it is created, each of its
requests answered as the direct endpoint would answer it (`oracle_answers`: as the
offline oracle would). Every request's method and path is recorded, so that a test can
tell which way a run went.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig, messages_from_openai

from inspect_personamem.offline.oracle import OracleModel
from support.servers.local import QuietHandler, serve

Completion = Callable[[dict[str, Any]], tuple[str, dict[str, int]]]
"""A chat request's body -> the reply's text and its usage (OpenAI's `usage` object)."""


@dataclass
class ChatServer:
    """What the stand-in holds: the files uploaded or written, the batches, and the
    method and path of every request received."""

    url: str = ""
    """The `/v1` base URL."""
    failing: bool = False
    """While set, a batch fails each of its requests (a server error)."""
    calls: list[str] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def paths(self, since: int = 0) -> set[str]:
        """The requests received from the `since`th on, as `METHOD /path` with ids
        replaced by `{id}`."""
        return {
            "/".join("{id}" if part.startswith(("file-", "batch_")) else part
                     for part in call.split("/"))
            for call in self.calls[since:]
        }  # fmt: skip


def oracle_answers(questions: Path, accuracy: float) -> Completion:
    """Answers as `personamem/oracle` with these arguments would (and as a grader, the
    right verdict), with its usage (four characters a token)."""
    oracle = OracleModel("personamem/oracle", questions=str(questions), accuracy=accuracy)

    async def generated(body: dict[str, Any]) -> tuple[str, dict[str, int]]:
        messages = await messages_from_openai(body["messages"])
        output = await oracle.generate(messages, [], "none", GenerateConfig())
        assert output.usage is not None
        usage = output.usage
        return output.completion, {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        }

    return lambda body: asyncio.run(generated(body))


def completion(body: dict[str, Any], answer: Completion, number: int) -> dict[str, Any]:
    """The chat completion answering request `body` (the `number`th answered)."""
    text, usage = answer(body)
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": text},
            }
        ],
        "usage": usage,
    }


def uploaded_file(content_type: str, body: bytes) -> bytes:
    """The `file` part of a multipart form upload."""
    form = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    for part in form.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload
    raise ValueError("no file part in the upload")


@contextmanager
def serve_chat(answer: Completion) -> Iterator[ChatServer]:
    """Serve the stand-in, answering every chat request with `answer`."""
    server = ChatServer()

    def answered(body: dict[str, Any]) -> dict[str, Any]:
        with server.lock:
            number = len(server.calls)
        return completion(body, answer, number)

    def result(number: int, line: dict[str, Any]) -> dict[str, Any]:
        """The output line of a batch's `number`th request `line`: its answer, or while
        the stand-in is failing, a server error."""
        answer = {"id": f"batch_req_{number}", "custom_id": line["custom_id"]}
        if server.failing:
            return {**answer, "response": None, "error": {"code": 500, "message": "failed"}}
        response = {"status_code": 200, "request_id": f"req_{number}"}
        return {**answer, "response": {**response, "body": answered(line["body"])}, "error": None}

    def run_batch(input_file_id: str, endpoint: str) -> dict[str, Any]:
        lines = [json.loads(line) for line in server.files[input_file_id].splitlines()]
        results = [result(i, line) for i, line in enumerate(lines)]
        with server.lock:
            output_id = f"file-{len(server.files)}"
            server.files[output_id] = "\n".join(map(json.dumps, results)).encode()
            batch_id = f"batch_{len(server.batches)}"
            batch = {
                "id": batch_id,
                "object": "batch",
                "endpoint": endpoint,
                "input_file_id": input_file_id,
                "completion_window": "24h",
                "status": "completed",
                "output_file_id": output_id,
                "error_file_id": None,
                "created_at": 0,
                "request_counts": {
                    "total": len(lines), "completed": 0 if server.failing else len(lines),
                    "failed": len(lines) if server.failing else 0,
                },
            }  # fmt: skip
            server.batches[batch_id] = batch
        return batch

    class Handler(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            server.calls.append(f"GET {self.path}")
            parts = self.path.strip("/").split("/")
            if parts[:2] == ["v1", "batches"] and parts[2] in server.batches:
                self.send_json(200, server.batches[parts[2]])
            elif parts[:2] == ["v1", "files"] and parts[3:] == ["content"]:
                data = server.files[parts[2]]
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            else:
                self.send_json(404, {"error": {"message": self.path}})

        def do_POST(self) -> None:  # noqa: N802
            server.calls.append(f"POST {self.path}")
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            if self.path == "/v1/chat/completions":
                self.send_json(200, answered(json.loads(raw)))
            elif self.path == "/v1/files":
                with server.lock:
                    file_id = f"file-{len(server.files)}"
                    server.files[file_id] = uploaded_file(self.headers["Content-Type"], raw)
                self.send_json(
                    200,
                    {
                        "id": file_id, "object": "file", "bytes": len(server.files[file_id]),
                        "created_at": 0, "filename": "batch.jsonl", "purpose": "batch",
                        "status": "processed",
                    },
                )  # fmt: skip
            elif self.path == "/v1/batches":
                body = json.loads(raw)
                self.send_json(200, run_batch(body["input_file_id"], body["endpoint"]))
            else:
                self.send_json(404, {"error": {"message": self.path}})

    with serve(Handler) as url:
        server.url = f"{url}/v1"
        yield server
