"""`offline/random_model.py`: the word-level tokenizer (its special tokens, lower-casing,
chat template), a random Llama-style model of a given shape (its sizes, vocabulary,
seed, dtype, eval mode), and both saved to a folder that loads back as they were. Needs
the local extra (torch, transformers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspect_personamem.offline.random_model import (
    CHAT_TEMPLATE,
    SPECIAL_TOKENS,
    ModelShape,
    random_llama,
    save_random_model,
    word_tokenizer,
)

pytestmark = pytest.mark.local_model

CORPUS = ["I like green tea", "She drinks coffee at noon", "Tea or coffee"]
SHAPE = ModelShape(hidden=16, layers=2, heads=4, kv_heads=2, intermediate=24)


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return word_tokenizer(CORPUS, max_positions=64)


def test_the_special_tokens_come_first_and_words_are_lower_cased(tokenizer: Any) -> None:
    assert tokenizer.convert_ids_to_tokens(list(range(len(SPECIAL_TOKENS)))) == list(SPECIAL_TOKENS)
    assert (tokenizer.pad_token, tokenizer.bos_token, tokenizer.eos_token) == (
        "<pad>",
        "<s>",
        "</s>",
    )
    words = {w.lower() for line in CORPUS for w in line.split()}
    assert len(tokenizer) == len(SPECIAL_TOKENS) + len(words)
    assert tokenizer.tokenize("TEA, Coffee") == ["tea", "<unk>", "coffee"]  # `,` never seen
    assert tokenizer.model_max_length == 64


def test_the_vocabulary_is_capped(tokenizer: Any) -> None:
    small = word_tokenizer(CORPUS, vocab_size=len(SPECIAL_TOKENS) + 2)
    assert len(small) == len(SPECIAL_TOKENS) + 2
    assert set(small.get_vocab()) < set(tokenizer.get_vocab())


def test_the_chat_template_marks_each_turn_and_the_reply_s_start(tokenizer: Any) -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "tea?"},
        {"role": "assistant", "content": "coffee"},
    ]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == "<s><|system|>be brief</s><|user|>tea?</s><|assistant|>coffee</s><|assistant|>"
    closed = tokenizer.apply_chat_template(messages[:2], tokenize=False)
    assert closed == "<s><|system|>be brief</s><|user|>tea?</s>"
    assert tokenizer.chat_template == CHAT_TEMPLATE


def test_a_model_has_the_shape_asked_for_and_the_tokenizer_s_vocabulary(tokenizer: Any) -> None:
    model = random_llama(tokenizer, SHAPE, max_positions=64)
    config = model.config
    assert (config.hidden_size, config.num_hidden_layers, config.intermediate_size) == (16, 2, 24)
    assert (config.num_attention_heads, config.num_key_value_heads) == (4, 2)
    assert config.vocab_size == len(tokenizer) and config.max_position_embeddings == 64
    assert (config.bos_token_id, config.eos_token_id, config.pad_token_id) == (2, 3, 0)
    assert not model.training
    wider = random_llama(tokenizer, ModelShape(16, 1, 4, 2, 24, vocab=100), max_positions=64)
    assert wider.get_input_embeddings().weight.shape == (100, 16)


def test_a_vocabulary_smaller_than_the_tokenizer_s_is_refused(tokenizer: Any) -> None:
    shape = ModelShape(16, 1, 4, 2, 24, vocab=len(tokenizer) - 1)
    with pytest.raises(
        ValueError,
        match=f"vocab {len(tokenizer) - 1} is smaller than the tokenizer's {len(tokenizer)}",
    ):
        random_llama(tokenizer, shape, max_positions=64)


def test_the_seed_fixes_the_weights_and_the_dtype_is_the_one_asked_for(tokenizer: Any) -> None:
    import torch

    def weights(seed: int, dtype: Any = None) -> Any:
        model = random_llama(tokenizer, SHAPE, max_positions=64, seed=seed, dtype=dtype)
        return model.get_input_embeddings().weight

    assert torch.equal(weights(1), weights(1))
    assert not torch.equal(weights(1), weights(2))
    assert weights(1, torch.bfloat16).dtype == torch.bfloat16


def test_a_saved_model_loads_back_with_its_tokenizer_and_gives_the_same_logits(
    tmp_path: Path,
) -> None:
    """Its key-value heads half its heads, its feed-forward twice its width."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = save_random_model(tmp_path / "m", CORPUS, hidden_size=8, layers=1, heads=2, seed=3)
    assert folder == tmp_path / "m"
    model = AutoModelForCausalLM.from_pretrained(folder)  # in eval mode
    tokenizer = AutoTokenizer.from_pretrained(folder)
    config = model.config
    assert (config.hidden_size, config.num_attention_heads, config.num_key_value_heads) == (8, 2, 1)
    assert config.intermediate_size == 16 and config.num_hidden_layers == 1
    assert tokenizer.chat_template == CHAT_TEMPLATE
    ids = tokenizer("i like tea", return_tensors="pt").input_ids
    built = random_llama(
        word_tokenizer(CORPUS), ModelShape(8, 1, 2, 1, 16), max_positions=4096,
        seed=3,
    )  # fmt: skip
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, built(ids).logits)
