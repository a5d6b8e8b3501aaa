"""Option log-probabilities from an OpenAI-compatible completions server (vLLM).

For models too big for one machine the serving engine does the distribution (vLLM's
tensor and pipeline parallelism); this module only asks it for prompt
log-probabilities. One request per question sends the four prompts (prefix + option)
as token ids, so the server scores exactly the tokens built here, with `echo=True`
(return the prompt's tokens), `logprobs=1` (with their log-probabilities) and
`max_tokens=1` (the one generated token is ignored). The answer's
`choices[i].logprobs.token_logprobs` holds one entry per prompt token, the first
being null; the option's entries are those after the prefix.

vLLM computes prompt log-probabilities without reading its prefix cache, so here
every option costs a full pass over its prompt on the server: the sharing of the
`hf/` path does not carry over, the engine's throughput has to make up for it.
"""

from __future__ import annotations

from typing import Any

from inspect_personamem.answer.logprob.stats import ForwardStats, Scored
from inspect_personamem.answer.logprob.template import OptionPrompt
from inspect_personamem.http_client import async_client

GENERATED_TOKENS = 1
"""`max_tokens` of each request: vLLM generates at least one token, which is ignored."""


class ServerResponseError(RuntimeError):
    """The completions server answered something other than prompt log-probabilities."""


class CompletionsLogprobs:
    """Scores options through `{base_url}/completions` of an OpenAI-compatible server."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout: float = 600.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self.stats = ForwardStats()

    async def context_window(self) -> int:
        """Prompt tokens allowed: the served model's `max_model_len` (from
        `{base_url}/models`, a vLLM field) less the one token each request generates,
        since vLLM refuses a request whose prompt and `max_tokens` exceed it."""
        data = await self._request("GET", "/models")
        for entry in data.get("data", []):
            if entry.get("id") == self.model and isinstance(entry.get("max_model_len"), int):
                return int(entry["max_model_len"]) - GENERATED_TOKENS
        raise ServerResponseError(
            f"{self.base_url}/models states no max_model_len for {self.model!r}; "
            "set the task parameter context_window"
        )

    async def option_logprobs(self, prompt: OptionPrompt) -> Scored:
        """Per option, the log-probability of each of its tokens after the prefix."""
        prompts = [list(prompt.prefix + option) for option in prompt.options]
        data = await self._request(
            "POST",
            "/completions",
            {
                "model": self.model,
                "prompt": prompts,
                "max_tokens": GENERATED_TOKENS,
                "echo": True,
                "logprobs": 1,
                "temperature": 0.0,
            },
        )
        call = ForwardStats(forward_tokens=sum(len(p) for p in prompts))
        self.stats.add(call)
        choices = sorted(data.get("choices", []), key=lambda choice: choice.get("index", 0))
        if len(choices) != len(prompts):
            raise ServerResponseError(
                f"{self.base_url}/completions returned {len(choices)} choices "
                f"for {len(prompts)} prompts"
            )
        start = len(prompt.prefix)
        results: list[list[float]] = []
        for choice, option in zip(choices, prompt.options, strict=True):
            values = ((choice.get("logprobs") or {}).get("token_logprobs") or [])[
                start : start + len(option)
            ]
            if len(values) != len(option) or not all(isinstance(v, (int, float)) for v in values):
                raise ServerResponseError(
                    f"{self.base_url}/completions returned no prompt log-probabilities for "
                    "the option's tokens (a vLLM server supports echo=True with logprobs)"
                )
            results.append([float(v) for v in values])
        return Scored(results, call)

    async def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        async with async_client(timeout=self.timeout) as client:
            response = await client.request(
                method, self.base_url + path, json=body, headers=self.headers
            )
        if response.status_code != 200:
            raise ServerResponseError(
                f"{method} {self.base_url}{path}: HTTP {response.status_code}: "
                f"{response.text[:500]}"
            )
        data = response.json()
        if not isinstance(data, dict):
            raise ServerResponseError(f"{method} {self.base_url}{path}: not a JSON object")
        return data
