"""Shared pieces of the log-likelihood tests: a synthetic split, a random model saved
next to it, the prompts of its questions, and a stand-in for vLLM's OpenAI-compatible
completions server."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from inspect_ai.model import ChatMessage, ChatMessageUser

from inspect_personamem.answer.logprob.template import OptionPrompt, build_prompt
from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions
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


def records(setup: LocalSetup) -> list[QuestionRecord]:
    """The setup's questions, in file order."""
    return read_questions(setup.questions, "32k")


def prompt_for(setup: LocalSetup, tokenizer: Any, record: QuestionRecord) -> OptionPrompt:
    """The prompt of `record`: its whole history, then its question and options."""
    history = open_context_store(setup.contexts).history(record.context_id, record.end_index)
    messages: list[ChatMessage] = [*history, ChatMessageUser(content=record.question)]
    return build_prompt(tokenizer, messages, record.options.bodies())


def assert_close(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> None:
    """Log-probabilities of the same shape, equal within float error."""
    assert [len(x) for x in a] == [len(x) for x in b]
    assert (
        max(abs(x - y) for u, v in zip(a, b, strict=True) for x, y in zip(u, v, strict=True)) < 1e-4
    )


def cached_bytes_per_token(model: Any) -> int:
    """A token's keys and values over all layers, in bytes."""
    config = model.config
    head = config.hidden_size // config.num_attention_heads
    size = torch.finfo(model.dtype).bits // 8
    return int(2 * config.num_hidden_layers * config.num_key_value_heads * head * size)


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
