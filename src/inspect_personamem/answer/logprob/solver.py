"""The log-likelihood solver (the paper's generative setting, §4.5).

The model sees what the history source gives (the whole history, none, or retrieved
items) and the question (`AskedAt.message` alone: no
instruction, no options) and each option, without its `(x) ` letter, is scored as
the assistant's reply. The option with the best normalised log-probability is
written as `<final_answer>(x)`, so `personamem_scorer` and its metrics score this
setting exactly as they score the discriminative one. The evidence goes to the
sample's metadata under `logprob`: per option the summed log-probability, token and
character counts and the normalised score; the prompt's size and any truncation.
"""

from __future__ import annotations

import logging

import anyio
from inspect_ai.model import ChatMessage, ChatMessageUser, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_personamem.answer.logprob.backend import Backend, backend_for
from inspect_personamem.answer.logprob.choice import as_metadata, chosen, score_options
from inspect_personamem.answer.logprob.template import ChatTemplateError
from inspect_personamem.answer.logprob.truncation import ContextWindowError, fit_prompt
from inspect_personamem.data.asked import AskedAt
from inspect_personamem.data.options import final_answer, shown_options
from inspect_personamem.history.seen import See
from inspect_personamem.types import Normalization, SystemMessagePolicy

logger = logging.getLogger(__name__)


@solver
def logprob_solver(
    see: See,
    system_messages: SystemMessagePolicy = "keep",
    keep_history_in_log: bool = False,
    normalization: Normalization = "tokens",
    context_window: int | None = None,
    option_batch_size: int = 4,
    prefill_chunk: int | None = None,
) -> Solver:
    """Pick the option the model finds most likely after the history and question.

    Args:
        see: The history source (`history=...`): the whole history, none, or retrieved
            items (a source that replaces the whole prompt does not apply).
        system_messages: What to do with system messages inside the history.
        normalization: "tokens" (mean per token, the paper's), "chars" or "sum".
        context_window: Tokens the prompt may use; default: the model's own limit.
        option_batch_size: Options run in one pass on a local model.
        keep_history_in_log: Leave the (possibly truncated) history in `state.messages`.
        prefill_chunk: On a local model, the most prefix tokens run in one pass (bounds
            activation memory); None: the whole prefix at once.
    """
    backends: dict[int, Backend] = {}
    creating = anyio.Lock()

    async def backend_of(model: Model) -> Backend:
        async with creating:
            if id(model.api) not in backends:
                backends[id(model.api)] = await backend_for(
                    model, context_window, option_batch_size, prefill_chunk
                )
            return backends[id(model.api)]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        backend = await backend_of(model)
        question: list[ChatMessage] = [ChatMessageUser(content=AskedAt.of(state.metadata).message)]
        seen = await see(state)
        history = seen.messages
        bodies = shown_options(state)
        async with backend.prompt_lock:
            try:
                messages, prompt, truncation = await anyio.to_thread.run_sync(
                    fit_prompt, backend.tokenizer, history, question, system_messages, bodies,
                    backend.window, backend.encoder,
                )  # fmt: skip
            except (ContextWindowError, ChatTemplateError) as ex:
                raise type(ex)(f"question_id {state.sample_id}: {ex}") from None
        # A local model takes the questions in the order their prompts were built (the
        # locks are first come first served, and nothing is awaited between releasing
        # one and queueing for the other), so each context's questions stay together.
        if backend.exclusive:
            async with backend.model_lock:
                scored = await backend.option_logprobs(prompt)
        else:
            scored = await backend.option_logprobs(prompt)
        if truncation.dropped_messages:
            logger.warning(f"question_id {state.sample_id}: {truncation.describe()}")
        scores = score_options(scored.logprobs, prompt.texts, normalization)
        best = chosen(scores)
        state.metadata["logprob"] = {
            "normalization": normalization,
            "chosen": best.letter,
            "options": as_metadata(scores),
            "prefix_tokens": len(prompt.prefix),
            "forward_tokens": scored.stats.forward_tokens,
            "reused_tokens": scored.stats.reused_tokens,
            "truncation": truncation.as_metadata(),
        }
        state.output = ModelOutput.from_content(model.name, final_answer(best.letter))
        shown = messages if keep_history_in_log else question
        state.messages = [*shown, state.output.message]
        return state

    return solve
