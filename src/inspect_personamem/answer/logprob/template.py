"""The log-likelihood prompt: chat-template tokens shared by the options, then each option.

The conversation (history and question, as chat messages) goes through the model's
chat template with the generation prompt, so the shared prefix ends with the
assistant header. Each option body is then rendered as that assistant's reply with
`continue_final_message=True`, which cuts the text right after the reply's content:
the end-of-turn token is not part of what is scored (the paper scores the option
text, and an end-of-turn would add one more token whose probability says "the reply
stops here" rather than anything about its content).

Whatever the template writes between the generation prompt and the content (an empty
`<think></think>` block, say) is the same for every option, so it joins the shared
prefix; only the content's own tokens are scored. Templates that trim the content are
handled (the trimmed text is what is scored).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ChatMessage


class ChatTemplateError(ValueError):
    """The tokenizer's chat template cannot render the options as assistant replies."""


@dataclass(frozen=True)
class OptionPrompt:
    """Token ids of the shared prefix and of each option, and the text each option scores."""

    prefix: tuple[int, ...]
    options: tuple[tuple[int, ...], ...]
    texts: tuple[str, ...]

    @property
    def longest_option(self) -> int:
        return max(len(option) for option in self.options)

    def length(self) -> int:
        """Positions needed to score every option after the prefix."""
        return len(self.prefix) + self.longest_option


def chat_dicts(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """Messages as the `{"role", "content"}` dicts chat templates expect (text only)."""
    return [{"role": message.role, "content": message.text} for message in messages]


def encode(tokenizer: Any, text: str) -> list[int]:
    """Token ids of rendered chat text; the template already wrote any BOS token."""
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def render(tokenizer: Any, chat: list[dict[str, str]], **kwargs: Any) -> str:
    text = tokenizer.apply_chat_template(chat, tokenize=False, **kwargs)
    if not isinstance(text, str):
        raise ChatTemplateError(f"the chat template returned {type(text).__name__}, not text")
    return text


def shared_text(
    tokenizer: Any, messages: Sequence[ChatMessage], bodies: Sequence[str]
) -> tuple[str, tuple[str, ...]]:
    """The text shared by the options (conversation, generation prompt and anything the
    template writes before the reply's content) and each option's scored text."""
    chat = chat_dicts(messages)
    head = render(tokenizer, chat, add_generation_prompt=True)
    leads: set[str] = set()
    texts: list[str] = []
    for body in bodies:
        if not body.strip():
            raise ChatTemplateError("an option has an empty body: nothing to score")
        full = render(
            tokenizer,
            [*chat, {"role": "assistant", "content": body}],
            continue_final_message=True,
        )
        if not full.startswith(head):
            raise ChatTemplateError(
                "the chat template renders the conversation differently once an assistant "
                "reply follows it, so the options cannot share the generation prompt"
            )
        continuation = full[len(head) :]
        text = body if continuation.endswith(body) else body.strip()
        if not continuation.endswith(text):
            raise ChatTemplateError(
                "the chat template changes the option text beyond trimming it: "
                f"{continuation[-80:]!r}"
            )
        leads.add(continuation[: len(continuation) - len(text)])
        texts.append(text)
    if len(leads) != 1:
        raise ChatTemplateError(
            f"the chat template writes different text before different options: {sorted(leads)}"
        )
    return head + leads.pop(), tuple(texts)


@dataclass(frozen=True)
class SharedPrefix:
    """The shared text encoded once: its token ids and where each token starts in it
    (None for tokenizers that cannot say), plus each option's scored text."""

    text: str
    ids: tuple[int, ...]
    starts: tuple[int, ...] | None
    texts: tuple[str, ...]


def shared_prefix(
    tokenizer: Any,
    messages: Sequence[ChatMessage],
    bodies: Sequence[str],
    encoder: PrefixEncoder | None = None,
) -> SharedPrefix:
    """Render and encode the text the options share (through `encoder` when given, which
    re-encodes only what differs from the text it encoded last)."""
    text, texts = shared_text(tokenizer, messages, bodies)
    ids, starts = (encoder or PrefixEncoder(tokenizer)).encode(text)
    return SharedPrefix(text=text, ids=ids, starts=starts, texts=texts)


class PrefixEncoder:
    """Token ids (and where each token starts) of shared texts, one after another, re-encoding
    only the part of each text that follows what it shares with the previous one.

    Consecutive questions of one context share their history up to the earlier end
    index: on the 128k split that is about 100k tokens a question that need not be
    encoded again. The previous encoding is kept up to a token boundary `MARGIN` characters
    before the first difference, less `OVERLAP` tokens; the rest of the new text is encoded
    from that boundary, and used only if its first `OVERLAP` tokens repeat the kept
    encoding's tokens there (same ids, same offsets), which shows the encoding is in step
    with a whole-text encoding at that point. Otherwise, and for tokenizers without
    offsets, the whole text is encoded. Call it from one thread at a time.
    """

    MARGIN = 256
    """Characters before the first difference that may still encode differently."""

    OVERLAP = 16
    """Tokens encoded twice, to check that the two encodings meet."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.offsets = bool(getattr(tokenizer, "is_fast", False))
        self._text = ""
        self._last = _Encoding((), (), ())
        self.encoded_chars = 0
        """Characters encoded so far (what the reuse saves shows against the texts' sizes)."""
        self.whole = 0
        """Texts encoded whole (nothing to reuse, or a tail out of step)."""

    def encode(self, text: str) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """Token ids of `text` and where each starts in it (None without offsets)."""
        if not self.offsets:
            self.encoded_chars += len(text)
            self.whole += 1
            return tuple(encode(self.tokenizer, text)), None
        last = self._last
        common = common_prefix_length(self._text, text)
        # the previous encoding's tokens that end well before the first difference
        settled = bisect.bisect_right(last.ends, common - self.MARGIN)
        keep = settled - self.OVERLAP
        encoding: _Encoding | None = None
        if keep > 0:
            # encoded from the end of the last kept token, so that a space before the next
            # token goes with it even where offsets leave spaces out
            tail = self._encode(text, last.ends[keep - 1])
            n = self.OVERLAP
            if (
                tail.ids[:n] == last.ids[keep:settled]
                and tail.starts[:n] == last.starts[keep:settled]
                and tail.ends[:n] == last.ends[keep:settled]
            ):
                encoding = _Encoding(
                    last.ids[:keep] + tail.ids,
                    last.starts[:keep] + tail.starts,
                    last.ends[:keep] + tail.ends,
                )
        if encoding is None:
            encoding = self._encode(text, 0)
            self.whole += 1
        self._text, self._last = text, encoding
        return encoding.ids, encoding.starts

    def _encode(self, text: str, cut: int) -> _Encoding:
        """The encoding of `text[cut:]`, offsets counted in `text`."""
        self.encoded_chars += len(text) - cut
        encoding = self.tokenizer(text[cut:], add_special_tokens=False, return_offsets_mapping=True)
        offsets = encoding["offset_mapping"]
        return _Encoding(
            tuple(encoding["input_ids"]),
            tuple(cut + start for start, _ in offsets),
            tuple(cut + end for _, end in offsets),
        )


@dataclass(frozen=True)
class _Encoding:
    ids: tuple[int, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]


def common_prefix_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of the longest common prefix of two strings or tuples, comparing slices
    (in C) rather than items one by one (in Python): about one pass over the shorter."""
    low, high = 0, min(len(a), len(b))
    if a[:high] == b[:high]:
        return high
    while high - low > 1:  # a[:low] == b[:low] and a[:high] != b[:high]
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    return low


def build_prompt(
    tokenizer: Any, messages: Sequence[ChatMessage], bodies: Sequence[str]
) -> OptionPrompt:
    """The shared prefix and the option continuations, as token ids."""
    return prompt_after(tokenizer, shared_prefix(tokenizer, messages, bodies))


def prompt_after(tokenizer: Any, shared: SharedPrefix) -> OptionPrompt:
    """Each option's tokens after an encoded shared prefix."""
    options = tuple(tuple(_continuation(tokenizer, shared, text)) for text in shared.texts)
    return OptionPrompt(prefix=shared.ids, options=options, texts=shared.texts)


_OVERLAP = 16
"""Prefix tokens re-encoded together with each option, to see how the two meet."""


def _continuation(tokenizer: Any, shared: SharedPrefix, text: str) -> list[int]:
    """The option's tokens as they follow the prefix.

    The option is encoded together with the end of the prefix (its last `_OVERLAP`
    tokens' text, so a 30k-token history is not encoded four more times); when that
    encoding begins with those same tokens, the rest is the option's. Otherwise the two
    merge across the boundary (or the tokenizer gives no offsets) and the option is
    taken from the joint encoding of the whole text when that keeps the prefix's
    tokens, else encoded alone, so that the prefix's tokens are always the shared ones.
    """
    prefix = list(shared.ids)
    tokens: list[int] | None = None
    if shared.starts is not None and prefix:
        cut = max(0, len(prefix) - _OVERLAP)
        tail = encode(tokenizer, shared.text[shared.starts[cut] :] + text)
        if tail[: len(prefix) - cut] == prefix[cut:]:
            tokens = tail[len(prefix) - cut :]
    if tokens is None:
        joint = encode(tokenizer, shared.text + text)
        tokens = joint[len(prefix) :] if joint[: len(prefix)] == prefix else encode(tokenizer, text)
    if not tokens:
        raise ChatTemplateError(f"the option {text[:60]!r} encodes to no tokens")
    return tokens
