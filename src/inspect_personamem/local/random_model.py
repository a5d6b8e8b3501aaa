"""A random Llama-style causal LM and a word-level tokenizer with a chat template, saved
to a folder that `hf/local -M model_path=...` loads: for tests and benchmarks, no
downloads. The weights are random, so its choices mean nothing; its shapes, cache
and chat template behave as a real model's do.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SPECIAL_TOKENS = ("<pad>", "<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>")
END_OF_TURN = "</s>"
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}" + END_OF_TURN + "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
"""Each message is its role token, its content and an end-of-turn; the generation
prompt is the assistant's role token."""


def save_random_model(
    folder: Path,
    corpus: Iterable[str],
    *,
    hidden_size: int = 32,
    layers: int = 2,
    heads: int = 4,
    vocab_size: int = 2000,
    max_positions: int = 4096,
    initializer_range: float = 0.5,
    seed: int = 0,
) -> Path:
    """Train a word-level tokenizer on `corpus`, build a random model, save both.

    The default `initializer_range` makes next-token distributions peaked, so that
    options get clearly different scores; 0.02 (the usual) gives log-probabilities of
    a realistic size."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = Tokenizer(models.WordLevel(unk_token="<unk>"))
    words.normalizer = normalizers.Lowercase()
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    words.train_from_iterator(
        corpus,
        trainers.WordLevelTrainer(vocab_size=vocab_size, special_tokens=list(SPECIAL_TOKENS)),
    )
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=words,
        bos_token="<s>",
        eos_token=END_OF_TURN,
        unk_token="<unk>",
        pad_token="<pad>",
        additional_special_tokens=list(SPECIAL_TOKENS[4:]),
        model_max_length=max_positions,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        max_position_embeddings=max_positions,
        initializer_range=initializer_range,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
