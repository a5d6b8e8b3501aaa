"""A local stand-in of the OpenAI API for embeddings and for Mem0's fact extraction.

`/v1/embeddings` answers hashed bag-of-words unit vectors (words shared -> similar);
`/v1/chat/completions` answers Mem0's extraction prompt (the text after
`## New Messages`) with one fact per `user:` line. Every request body is recorded.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from support.servers.local import QuietHandler, serve

DIMENSIONS = 64
_WORD = re.compile(r"[a-z0-9']+")


def hashed_embedding(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        vector[int.from_bytes(digest[:4], "little") % dimensions] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def extracted_facts(prompt: str) -> list[str]:
    new = prompt.split("## New Messages", 1)[-1]
    return [
        "User said: " + line.removeprefix("user: ").strip()
        for line in new.splitlines()
        if line.startswith("user: ") and line.strip() != "user:"
    ]


def prompt_tokens(body: dict[str, Any]) -> int:
    """The stand-in's token count of a chat request: its words."""
    return sum(len(str(m.get("content")).split()) for m in body["messages"])


def mem0_stand_in_config(url: str) -> dict[str, Any]:
    """A Mem0 config whose LLM and embedder are the stand-in at `url`."""
    return {
        "llm": {
            "provider": "openai",
            "config": {"model": "gpt-4o-mini", "api_key": "x", "openai_base_url": url},
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "stand-in", "api_key": "x", "openai_base_url": url,
                "embedding_dims": DIMENSIONS,
            },
        },
    }  # fmt: skip


@contextmanager
def serve_openai(fail_embeddings: bool = False) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Yield the stand-in's `/v1` base URL and the list of request bodies it received."""
    requests: list[dict[str, Any]] = []

    class Handler(QuietHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append({"path": self.path, **body})
            if self.path.endswith("/embeddings"):
                if fail_embeddings:
                    self.send_json(503, {"error": {"message": "overloaded"}})
                    return
                inputs = [body["input"]] if isinstance(body["input"], str) else body["input"]
                dimensions = int(body.get("dimensions") or DIMENSIONS)
                data = [
                    {
                        "object": "embedding",
                        "index": i,
                        "embedding": hashed_embedding(t, dimensions),
                    }
                    for i, t in enumerate(inputs)
                ]
                words = sum(len(t.split()) for t in inputs)
                usage = {"prompt_tokens": words, "total_tokens": words}
                self.send_json(
                    200, {"object": "list", "data": data, "model": body["model"], "usage": usage}
                )
            elif self.path.endswith("/chat/completions"):
                prompt = "\n".join(str(m.get("content")) for m in body["messages"])
                facts = extracted_facts(prompt)
                content = json.dumps(
                    {"memory": [{"id": str(i), "text": f} for i, f in enumerate(facts)]}
                )
                self.send_json(
                    200,
                    {
                        "id": "chatcmpl-0",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt_tokens(body),
                            "completion_tokens": len(content.split()),
                            "total_tokens": prompt_tokens(body) + len(content.split()),
                        },
                    },
                )
            else:
                self.send_json(404, {"error": {"message": self.path}})

    with serve(Handler) as url:
        yield f"{url}/v1", requests
