"""A random Llama-style causal LM and a word-level tokenizer with a chat template: saved
to a folder that `hf/local -M model_path=...` loads (tests), or built straight on a
device in any shape and dtype (benchmarks: an 8B model need not go through disk). No
downloads. The weights are random, so its choices mean nothing; its shapes, cache and
chat template behave as a real model's do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ("<pad>", "<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>")
END_OF_TURN = "</s>"
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}" + END_OF_TURN + "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
"""Each message is its role token, its content and an end-of-turn; the generation
prompt is the assistant's role token."""


@dataclass(frozen=True)
class ModelShape:
    """A Llama-style model's sizes; `vocab` None: the tokenizer's."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int | None = None
    rope_theta: float = 10000.0


def word_tokenizer(
    corpus: Iterable[str], *, vocab_size: int = 2000, max_positions: int = 4096
) -> Any:
    """A word-level tokenizer trained on `corpus`, with `CHAT_TEMPLATE`."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

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
    return tokenizer


def random_llama(
    tokenizer: Any,
    shape: ModelShape,
    *,
    max_positions: int,
    initializer_range: float = 0.5,
    seed: int = 0,
    dtype: Any = None,
    device: Any = None,
) -> Any:
    """A random `LlamaForCausalLM` of `shape` for `tokenizer`, created in `dtype` on
    `device` (None: the defaults), in eval mode."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    vocab = shape.vocab or len(tokenizer)
    if vocab < len(tokenizer):
        raise ValueError(f"vocab {vocab} is smaller than the tokenizer's {len(tokenizer)}")
    # transformers 4's keyword; 5 reads it into `rope_parameters`
    rope: dict[str, Any] = {"rope_theta": shape.rope_theta}
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=shape.hidden,
        intermediate_size=shape.intermediate,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        **rope,
        max_position_embeddings=max_positions,
        initializer_range=initializer_range,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    with torch.device(device or "cpu"):
        model = LlamaForCausalLM._from_config(  # type: ignore[no-untyped-call]
            config, dtype=dtype, attn_implementation="sdpa"
        )
    return model.eval()


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
    tokenizer = word_tokenizer(corpus, vocab_size=vocab_size, max_positions=max_positions)
    shape = ModelShape(hidden_size, layers, heads, max(1, heads // 2), hidden_size * 2)
    model = random_llama(
        tokenizer,
        shape,
        max_positions=max_positions,
        initializer_range=initializer_range,
        seed=seed,
    )
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
