"""The token ids of a question: chat template, shared prefix, options scored alone, and
the prefix encoder kept across questions (`answer/logprob/template.py`). Tests on the
random model's tokenizer need the local extra; the others run without it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest
from inspect_ai.model import ChatMessageUser

from inspect_personamem.answer.logprob.template import (
    PrefixEncoder,
    build_prompt,
    common_prefix_length,
    encode,
    shared_text,
)
from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.offline.random_model import END_OF_TURN

if TYPE_CHECKING:
    from support.logprob import LocalSetup


@pytest.mark.local_model
def test_prompt_scores_only_the_option_text(setup: LocalSetup, tokenizer: Any) -> None:
    from support.logprob import prompt_for, records

    record = records(setup)[0]
    prompt = prompt_for(setup, tokenizer, record)
    assert tokenizer.decode(prompt.prefix[-1:]) == "<|assistant|>"
    for option, body in zip(prompt.options, record.options.bodies(), strict=True):
        assert option == tuple(encode(tokenizer, body))  # no letter, no end-of-turn
        assert tokenizer.convert_tokens_to_ids(END_OF_TURN) not in option


@pytest.mark.local_model
def test_template_lead_joins_prefix_and_trimmed_content_is_scored(tokenizer: Any) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer.name_or_path)
    tokenizer.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{% if m['role'] == 'assistant' %}"
        "<|system|>{% endif %}{{ m['content'] | trim }}</s>{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    prompt = build_prompt(tokenizer, [ChatMessageUser(content="coffee")], [" jazz river ", "yoga"])
    assert tokenizer.decode(prompt.prefix[-2:]) == "<|assistant|> <|system|>"
    assert prompt.texts == ("jazz river", "yoga")
    assert prompt.options == (
        tuple(encode(tokenizer, "jazz river")),
        tuple(encode(tokenizer, "yoga")),
    )


@pytest.mark.local_model
def test_option_merging_with_the_prefix_is_encoded_alone(tokenizer: Any) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer.name_or_path)
    tokenizer.chat_template = (
        "{% for m in messages %}{{ m['role'] }} garden {{ m['content'] }}. {% endfor %}"
        "{% if add_generation_prompt %}assistant garden{% endif %}"
    )
    # "garden" + "coffee" is one word to this tokenizer: joint encoding would change the
    # prefix's last token, so the option is encoded on its own
    prompt = build_prompt(tokenizer, [ChatMessageUser(content="yoga")], ["coffee", " jazz"])
    joint = encode(tokenizer, "user garden yoga. assistant gardencoffee")
    assert joint[: len(prompt.prefix)] != list(prompt.prefix)
    assert prompt.prefix == tuple(encode(tokenizer, "user garden yoga. assistant garden"))
    assert prompt.options == (tuple(encode(tokenizer, "coffee")), tuple(encode(tokenizer, " jazz")))


def test_common_prefix_length() -> None:
    assert common_prefix_length("", "abc") == 0
    assert common_prefix_length("abc", "abc") == 3
    assert common_prefix_length("abcd", "abc") == 3
    assert common_prefix_length("abxd", "abyd") == 2
    assert common_prefix_length((1, 2, 3), (1, 2, 4, 5)) == 2
    for cut in range(0, 50):
        text = "".join(chr(97 + i % 26) for i in range(50))
        assert common_prefix_length(text, text[:cut] + "#" + text[cut:]) == cut


def shared_texts(setup: LocalSetup, tokenizer: Any) -> list[str]:
    """The shared text of each question, in the order answer=logprob sends them."""
    from support.logprob import records

    from inspect_personamem.data.order import order_records

    store = open_context_store(setup.contexts)
    texts = []
    for record in order_records(records(setup), "grouped"):
        history = store.history(record.context_id, record.end_index)
        messages = [*history, ChatMessageUser(content=record.question)]
        texts.append(shared_text(tokenizer, messages, record.options.bodies())[0])
    return texts


def bpe_tokenizer(corpus: Sequence[str], pre_tokenizer: Any, decoder: Any) -> Any:
    from tokenizers import Tokenizer, models, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizer
    bpe.decoder = decoder
    bpe.train_from_iterator(
        corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=["<|user|>", "<|assistant|>"])
    )
    return PreTrainedTokenizerFast(tokenizer_object=bpe)  # type: ignore[no-untyped-call]


@pytest.mark.local_model
def test_prefix_encoder_equals_whole_encoding(setup: LocalSetup, tokenizer: Any) -> None:
    """Word-level, byte-level BPE and SentencePiece-style BPE: each text's tokens and offsets
    as encoded whole; a text that differs early is encoded whole. Word-level and
    byte-level tails are in step with the whole encoding, so far fewer characters are
    encoded (the SentencePiece-style one mostly falls back to whole encodings)."""
    from tokenizers import decoders, pre_tokenizers

    texts = shared_texts(setup, tokenizer)
    byte_level = bpe_tokenizer(
        texts, pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel()
    )
    metaspace = bpe_tokenizer(
        texts, pre_tokenizers.Metaspace(prepend_scheme="first"), decoders.Metaspace()
    )
    for tok in (tokenizer, byte_level, metaspace):
        encoder = PrefixEncoder(tok)
        for text in [*texts, "x" + texts[-1], texts[0]]:
            whole = tok(text, add_special_tokens=False, return_offsets_mapping=True)
            ids, starts = encoder.encode(text)
            assert list(ids) == whole["input_ids"]
            assert starts == tuple(start for start, _ in whole["offset_mapping"])
        encoded = encoder.encoded_chars - len(texts[-1]) - 1 - len(texts[0])
        if tok is not metaspace:
            assert encoded < sum(map(len, texts)) / 2  # 8 questions over 2 contexts
            # whole: the first question of each context, then the two others
            assert encoder.whole == 4


class MarksItsStart:
    """A fast tokenizer's interface, one token a character, that marks the start of whatever
    it encodes (as SentencePiece's dummy prefix does before a word)."""

    is_fast = True

    def __call__(self, text: str, **kwargs: Any) -> dict[str, list[Any]]:
        return {
            "input_ids": [0, *map(ord, text)],
            "offset_mapping": [(0, 0), *((i, i + 1) for i in range(len(text)))],
        }


def test_prefix_encoder_falls_back_when_a_tail_encodes_out_of_step() -> None:
    """A tail encoded on its own does not repeat the whole encoding's tokens where it
    starts: the check catches it, and the whole text is encoded instead."""
    encoder = PrefixEncoder(MarksItsStart())
    texts = ["ab" * 400 + "c", "ab" * 400 + "d" * 10, "ab" * 400 + "e"]
    for text in texts:
        ids, starts = encoder.encode(text)
        assert list(ids) == MarksItsStart()(text)["input_ids"]
        assert starts == (0, *range(len(text)))
    assert encoder.whole == 3
    assert encoder.encoded_chars > sum(map(len, texts))  # the tails tried, then the whole texts
