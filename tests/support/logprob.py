"""Shared pieces of the log-likelihood tests: a synthetic split, a random model saved
next to it, and a stand-in for vLLM's OpenAI-compatible completions server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.offline.random_model import save_random_model
from support.servers.local import QuietHandler, serve

# The models here are tiny: extra threads only spin-wait on a loaded machine (measured:
# 20 s instead of 0.3 s for one test on 2 busy cores).
torch.set_num_threads(1)


@dataclass(frozen=True)
class LocalSetup:
    data: Path
    questions: Path
    contexts: Path
    model: Path


def make_setup(folder: Path, *, questions: int = 6) -> LocalSetup:
    """Two contexts of 20-30 messages, `questions` questions, and a model trained on them."""
    questions_file, contexts_file = generate_split(
        folder / "data",
        "32k",
        contexts=2,
        min_messages=20,
        max_messages=30,
        questions=questions,
        message_chars=80,
    )
    corpus = [
        message["content"]
        for line in contexts_file.read_text(encoding="utf-8").splitlines()
        for messages in json.loads(line).values()
        for message in messages
    ]
    corpus.append(questions_file.read_text(encoding="utf-8"))
    model = save_random_model(folder / "model", corpus)
    return LocalSetup(folder / "data", questions_file, contexts_file, model)


@contextmanager
def completions_server(
    model: Any, name: str, max_model_len: int, requests: list[dict[str, Any]]
) -> Iterator[str]:
    """Serve `/v1/completions` (token-id prompts, echo, logprobs) and `/v1/models` as vLLM
    does, computing log-probabilities with `model`; yield the base URL. Each completions
    request body is appended to `requests`."""

    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.path != "/v1/models":
                return self.send_json(404, {"error": self.path})
            entry = {"id": name, "object": "model", "max_model_len": max_model_len}
            self.send_json(200, {"object": "list", "data": [entry]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/completions" or not body.get("echo"):
                return self.send_json(400, {"error": "only echoed completions are served"})
            requests.append(body)
            prompts = body["prompt"]
            longest = max(len(ids) for ids in prompts) + int(body.get("max_tokens", 16))
            if longest > max_model_len:  # vLLM refuses such a request
                return self.send_json(400, {"error": f"{longest} tokens > {max_model_len}"})
            choices = [
                {"index": i, "text": "", "logprobs": _echo_logprobs(model, ids, body)}
                for i, ids in enumerate(prompts)
            ]
            self.send_json(200, {"object": "text_completion", "model": name, "choices": choices})

    with serve(Handler) as url:
        yield f"{url}/v1"


@torch.inference_mode()
def _echo_logprobs(model: Any, ids: list[int], body: dict[str, Any]) -> dict[str, Any]:
    """The prompt's token log-probabilities (the first null), then `max_tokens` greedy
    tokens with theirs, as vLLM echoes them."""
    tokens = list(ids)
    table = torch.log_softmax(model(input_ids=torch.tensor([tokens])).logits[0].float(), -1)
    logprobs: list[float | None] = [None]
    logprobs += [float(table[i, tokens[i + 1]]) for i in range(len(tokens) - 1)]
    for _ in range(int(body.get("max_tokens", 16))):
        next_id = int(table[-1].argmax())
        logprobs.append(float(table[-1, next_id]))
        tokens.append(next_id)
        table = torch.log_softmax(model(input_ids=torch.tensor([tokens])).logits[0].float(), -1)
    return {
        "tokens": [str(t) for t in tokens],
        "token_logprobs": logprobs,
        "top_logprobs": None,
        "text_offset": list(range(len(tokens))),
    }
