"""Which log-probability back end serves an Inspect model, and what it needs.

- `hf/...` (Inspect's transformers provider): the provider's own model and tokenizer
  (`api.model`, `api.tokenizer`) with the shared-prefix back end. One question at a
  time, in the order they arrive: the model is one device-bound resource, and its kept
  cache serves the next question of the same context.
- `vllm/...` or `openai-api/...` (an OpenAI-compatible server): the server's
  completions endpoint, with a tokenizer loaded here by the served model's name (a
  hub id or a local path) so that the prompt tokens sent are the ones scored.
  Requests run concurrently.

Prompts are built one at a time under `prompt_lock` (fast tokenizers must not be
shared between threads, and `encoder` re-encodes only what a question does not share
with the previous one); for a local model the next question's prompt is built while the
model runs the current one.

Heavy imports (torch, transformers) happen here on first use, so the tasks import
without the `local` extra.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

import anyio
from inspect_ai.model import Model, ModelAPI

if TYPE_CHECKING:
    from inspect_ai.model._providers.hf import HuggingFaceAPI
    from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI

from inspect_personamem.answer.logprob.stats import ForwardStats, Scored
from inspect_personamem.answer.logprob.template import OptionPrompt, PrefixEncoder

OptionLogprobsFn = Callable[[OptionPrompt], Awaitable[Scored]]
"""Per option of a prompt, the log-probability of each of its tokens."""


@dataclass
class Backend:
    """A tokenizer with a chat template, the context window, and the log-probability call.

    `exclusive` back ends run `option_logprobs` under `model_lock` (a local model: one
    question at a time, first come first served); the others concurrently.
    """

    tokenizer: Any
    window: int
    option_logprobs: OptionLogprobsFn
    exclusive: bool
    stats: ForwardStats
    encoder: PrefixEncoder
    prompt_lock: anyio.Lock = field(default_factory=anyio.Lock)
    model_lock: anyio.Lock = field(default_factory=anyio.Lock)


async def backend_for(
    model: Model,
    context_window: int | None,
    option_batch_size: int,
    prefill_chunk: int | None = None,
) -> Backend:
    """The back end for `model`; raise if its provider cannot give prompt log-probabilities.

    The provider is told apart without importing its module (Inspect's hf/ provider
    imports torch): a model of that provider was made by it, so its module is loaded."""
    api = model.api
    if _is_hf(api):
        from inspect_personamem.answer.logprob.hf import SharedPrefixLogprobs
        from inspect_personamem.answer.logprob.hf import context_window as hf_context_window

        if isinstance(api.chat_template, str):  # -M chat_template=... as the provider uses it
            api.tokenizer.chat_template = api.chat_template
        _require_chat_template(api.tokenizer, model.name)
        logprobs = SharedPrefixLogprobs(
            api.model, api.tokenizer, option_batch_size, prefill_chunk=prefill_chunk
        )

        async def option_logprobs(prompt: OptionPrompt) -> Scored:
            return await anyio.to_thread.run_sync(logprobs.option_logprobs, prompt)

        return Backend(
            tokenizer=api.tokenizer,
            window=context_window or hf_context_window(api.model, api.tokenizer),
            option_logprobs=option_logprobs,
            exclusive=True,
            stats=logprobs.stats,
            encoder=PrefixEncoder(api.tokenizer),
        )
    if _is_openai_compatible(api):
        from transformers import AutoTokenizer

        from inspect_personamem.answer.logprob.server import CompletionsLogprobs

        # the vllm/ provider starts its server (or resolves base_url) lazily
        ensure_started = getattr(api, "_ensure_server_started", None)
        if ensure_started is not None:
            await ensure_started()
        name = api.service_model_name()
        tokenizer = await anyio.to_thread.run_sync(AutoTokenizer.from_pretrained, name)
        _require_chat_template(tokenizer, name)
        server = CompletionsLogprobs(str(api.base_url), name, api.api_key)
        return Backend(
            tokenizer=tokenizer,
            window=context_window or await server.context_window(),
            option_logprobs=server.option_logprobs,
            exclusive=False,
            stats=server.stats,
            encoder=PrefixEncoder(tokenizer),
        )
    raise ValueError(
        f"method='logprob' needs prompt log-probabilities, which the {type(api).__name__} "
        f"provider of {model.name!r} cannot give: use hf/<model> (local transformers) or "
        "vllm/<model> (a vLLM server)"
    )


def _is_hf(api: ModelAPI) -> TypeGuard[HuggingFaceAPI]:
    """Whether `api` is Inspect's hf/ provider, without importing it (nor torch)."""
    return _is_instance(api, "inspect_ai.model._providers.hf", "HuggingFaceAPI")


def _is_openai_compatible(api: ModelAPI) -> TypeGuard[OpenAICompatibleAPI]:
    """Whether `api` is an OpenAI-compatible provider (vllm/, openai-api/), without
    importing it."""
    return _is_instance(api, "inspect_ai.model._providers.openai_compatible", "OpenAICompatibleAPI")


def _is_instance(api: ModelAPI, module: str, name: str) -> bool:
    """Whether `api` is an instance of class `name` of `module`: never true where the
    module is not loaded, so it is not imported to ask."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(api, getattr(loaded, name))


def _require_chat_template(tokenizer: Any, name: str) -> None:
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(
            f"the tokenizer of {name!r} has no chat template, which the log-likelihood prompt "
            "is built with (pass one with -M chat_template=...)"
        )
