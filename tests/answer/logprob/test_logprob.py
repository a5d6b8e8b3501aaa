"""The log-likelihood pieces on a tiny random model: prompt, shared-prefix log-probabilities,
truncation, choice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

pytest.importorskip("torch", reason="needs the local extra: pip install -e '.[local]'")
pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

import torch  # noqa: E402
from support.logprob import LocalSetup, make_setup  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from inspect_personamem.answer.logprob import hf  # noqa: E402
from inspect_personamem.answer.logprob.choice import chosen, score_options  # noqa: E402
from inspect_personamem.answer.logprob.hf import (  # noqa: E402
    SharedPrefixLogprobs,
    naive_option_logprobs,
    packed_mask,
)
from inspect_personamem.answer.logprob.template import (  # noqa: E402
    OptionPrompt,
    PrefixEncoder,
    build_prompt,
    common_prefix_length,
    encode,
    shared_text,
)
from inspect_personamem.answer.logprob.truncation import ContextWindowError, fit_prompt  # noqa: E402
from inspect_personamem.datasets.v1.contexts import open_context_store  # noqa: E402
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions  # noqa: E402
from inspect_personamem.offline.random_model import END_OF_TURN  # noqa: E402


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> LocalSetup:
    return make_setup(tmp_path_factory.mktemp("logprob"), questions=8)


@pytest.fixture(scope="module")
def model(setup: LocalSetup) -> Any:
    return AutoModelForCausalLM.from_pretrained(setup.model)


@pytest.fixture(scope="module")
def tokenizer(setup: LocalSetup) -> Any:
    return AutoTokenizer.from_pretrained(setup.model)


def records(setup: LocalSetup) -> list[QuestionRecord]:
    return read_questions(setup.questions, "32k")


def prompt_for(setup: LocalSetup, tokenizer: Any, record: QuestionRecord) -> OptionPrompt:
    history = open_context_store(setup.contexts).history(record.context_id, record.end_index)
    messages: list[ChatMessage] = [*history, ChatMessageUser(content=record.question)]
    return build_prompt(tokenizer, messages, record.options.bodies())


def assert_close(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> None:
    assert [len(x) for x in a] == [len(x) for x in b]
    assert (
        max(abs(x - y) for u, v in zip(a, b, strict=True) for x, y in zip(u, v, strict=True)) < 1e-4
    )


def test_prompt_scores_only_the_option_text(setup: LocalSetup, tokenizer: Any) -> None:
    record = records(setup)[0]
    prompt = prompt_for(setup, tokenizer, record)
    assert tokenizer.decode(prompt.prefix[-1:]) == "<|assistant|>"
    for option, body in zip(prompt.options, record.options.bodies(), strict=True):
        assert option == tuple(encode(tokenizer, body))  # no letter, no end-of-turn
        assert tokenizer.convert_tokens_to_ids(END_OF_TURN) not in option


def test_template_lead_joins_prefix_and_trimmed_content_is_scored(tokenizer: Any) -> None:
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


@pytest.mark.parametrize(("batch", "chunk"), [(4, None), (3, 64), (1, 64)])
def test_shared_prefix_equals_naive_forward(
    setup: LocalSetup, model: Any, tokenizer: Any, batch: int, chunk: int | None
) -> None:
    logprobs = SharedPrefixLogprobs(model, tokenizer, option_batch_size=batch, prefill_chunk=chunk)
    assert logprobs.packed and logprobs.fast_attention  # sdpa, grouped-query heads
    for record in records(setup):
        prompt = prompt_for(setup, tokenizer, record)
        assert_close(
            logprobs.option_logprobs(prompt).logprobs, naive_option_logprobs(model, prompt)
        )
    # questions of one context follow each other: their common history was reused
    assert logprobs.stats.reused_tokens > 0


def test_cache_reuse_saves_forward_tokens(setup: LocalSetup, model: Any, tokenizer: Any) -> None:
    context = records(setup)[0].context_id
    first, second = [r for r in records(setup) if r.context_id == context][:2]
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    alone = logprobs.option_logprobs(prompt_for(setup, tokenizer, first)).stats
    assert alone.reused_tokens == 0
    prompt = prompt_for(setup, tokenizer, second)
    scored = logprobs.option_logprobs(prompt)
    assert_close(scored.logprobs, naive_option_logprobs(model, prompt))
    # the history both questions share (every message has over 5 tokens) was not run again
    assert scored.stats.reused_tokens > 5 * min(first.end_index, second.end_index)
    # the new tail of the prefix, then the options packed into one pass: no padding
    assert scored.stats.forward_tokens == (
        len(prompt.prefix) - scored.stats.reused_tokens + sum(map(len, prompt.options))
    )
    assert logprobs.stats.forward_tokens == alone.forward_tokens + scored.stats.forward_tokens


class Passes:
    """Records each forward pass of a model: its input length and attention implementation."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls: list[tuple[int, str]] = []

    def __enter__(self) -> Passes:
        def hook(module: Any, args: Any, kwargs: dict[str, Any]) -> None:
            length = kwargs["input_ids"].shape[1]
            self.calls.append((length, module.config._attn_implementation))

        self.handle = self.model.register_forward_pre_hook(hook, with_kwargs=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.remove()

    @property
    def lengths(self) -> list[int]:
        return [length for length, _ in self.calls]


def storages(logprobs: SharedPrefixLogprobs) -> list[int]:
    """Where each layer's cached keys and values live."""
    return [
        tensor.untyped_storage().data_ptr()
        for layer in logprobs._cache.layers
        for tensor in (layer.keys, layer.values)
    ]


def cached_bytes_per_token(model: Any) -> int:
    """A token's keys and values over all layers, in bytes."""
    config = model.config
    head = config.hidden_size // config.num_attention_heads
    size = torch.finfo(model.dtype).bits // 8
    return int(2 * config.num_hidden_layers * config.num_key_value_heads * head * size)


def test_a_kept_cache_is_written_in_place(setup: LocalSetup, model: Any, tokenizer: Any) -> None:
    """Passes after a kept cache write their own keys and values only: no copy of the
    cache (transformers' own cache concatenates, copying all of it on every pass)."""
    context = records(setup)[0].context_id
    first, second, third = [r for r in records(setup) if r.context_id == context][:3]
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    alone = logprobs.option_logprobs(prompt_for(setup, tokenizer, first)).stats
    assert (alone.passes, alone.cache_copies, alone.copied_bytes) == (2, 0, 0)
    where = storages(logprobs)
    for record in (second, third):
        prompt = prompt_for(setup, tokenizer, record)
        # the buffer reserved at the first prefill holds the later ones of this context
        assert len(prompt.prefix) + sum(map(len, prompt.options)) <= 1.5 * alone.forward_tokens
        scored = logprobs.option_logprobs(prompt)
        assert_close(scored.logprobs, naive_option_logprobs(model, prompt))
        assert scored.stats.reused_tokens > 0
        # the new tail, then the options: two passes, nothing copied
        assert (scored.stats.passes, scored.stats.cache_copies, scored.stats.copied_bytes) == (
            2,
            0,
            0,
        )
        assert storages(logprobs) == where
    assert logprobs.stats.passes == 6 and logprobs.stats.copied_bytes == 0


def test_a_prefix_run_in_chunks_fills_its_cache_without_copies(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    logprobs = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=50)
    stats = logprobs.option_logprobs(prompt).stats
    assert stats.passes == -(-len(prompt.prefix) // 50) + 1
    assert (stats.cache_copies, stats.copied_bytes) == (0, 0)


def test_a_kept_cache_outgrown_is_copied_once(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    """A prefix longer than the reserved buffer holds moves the cached tokens to a larger
    one: one copy of what was kept, counted in bytes, and the scores stay exact."""
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    kept = len(prompt.prefix) // 3  # above MIN_REUSE, below the buffer's 1.5x growth
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    logprobs.option_logprobs(OptionPrompt(prompt.prefix[:kept], prompt.options, prompt.texts))
    where = storages(logprobs)
    scored = logprobs.option_logprobs(prompt)
    assert scored.stats.reused_tokens == kept
    assert scored.stats.passes == 2
    assert scored.stats.cache_copies == 1
    assert scored.stats.copied_bytes == kept * cached_bytes_per_token(model)
    assert set(storages(logprobs)).isdisjoint(where)
    assert_close(scored.logprobs, naive_option_logprobs(model, prompt))


def test_prefill_is_one_causal_pass_when_nothing_is_reused(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    options = sum(map(len, prompt.options))
    with Passes(model) as passes:
        scored = SharedPrefixLogprobs(model, tokenizer).option_logprobs(prompt)
    # the whole prefix in one pass, then all four options in another
    assert passes.lengths == [len(prompt.prefix), options]
    assert scored.stats.passes == 2
    assert {name for _, name in passes.calls} == {hf.FAST_ATTENTION}
    assert model.config._attn_implementation == "sdpa"  # put back after the call
    with Passes(model) as passes:
        SharedPrefixLogprobs(model, tokenizer, prefill_chunk=100).option_logprobs(prompt)
    chunks = [min(100, len(prompt.prefix) - start) for start in range(0, len(prompt.prefix), 100)]
    assert passes.lengths == [*chunks, options]
    # the option batch size bounds the options run in one pass
    with Passes(model) as passes:
        SharedPrefixLogprobs(model, tokenizer, option_batch_size=3).option_logprobs(prompt)
    assert passes.lengths == [
        len(prompt.prefix),
        *(sum(map(len, b)) for b in (prompt.options[:3], prompt.options[3:])),
    ]


def test_attention_implementation_is_put_back_after_a_failure(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    prompt = prompt_for(setup, tokenizer, records(setup)[0])
    broken = OptionPrompt(prompt.prefix, ((10**6,),), ("x",))  # an id beyond the vocabulary
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    with pytest.raises((IndexError, RuntimeError)):
        logprobs.option_logprobs(broken)
    assert model.config._attn_implementation == "sdpa"
    assert_close(logprobs.option_logprobs(prompt).logprobs, naive_option_logprobs(model, prompt))


def test_bottom_right_causal_bias_route_equals_naive(
    setup: LocalSetup, model: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CUDA route for passes after cached tokens (SDPA's `causal_lower_right`), here
    taken on the CPU, where PyTorch materialises the same bias."""
    monkeypatch.setattr(hf, "LOWER_RIGHT_DEVICES", ("cuda", "cpu"))
    logprobs = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=50)
    for record in records(setup)[:4]:
        prompt = prompt_for(setup, tokenizer, record)
        assert_close(
            logprobs.option_logprobs(prompt).logprobs, naive_option_logprobs(model, prompt)
        )
    assert logprobs.stats.reused_tokens > 0


@pytest.mark.parametrize("route", ["transformers attention", "eager", "padded"])
def test_other_routes_equal_naive(
    setup: LocalSetup, model: Any, tokenizer: Any, route: str
) -> None:
    """transformers' own masks (fast_attention off), eager attention (the packed mask
    added to the scores), and the padded batch on copies of the cache (attention that
    takes no such mask)."""
    used = model
    if route == "eager":
        used = AutoModelForCausalLM.from_pretrained(setup.model, attn_implementation="eager")
    logprobs = SharedPrefixLogprobs(used, tokenizer, prefill_chunk=64, fast_attention=False)
    assert not logprobs.fast_attention
    if route == "padded":
        logprobs.packed = False
    for record in records(setup)[:4]:
        prompt = prompt_for(setup, tokenizer, record)
        scored = logprobs.option_logprobs(prompt)
        assert_close(scored.logprobs, naive_option_logprobs(used, prompt))
        options = 4 * prompt.longest_option if route == "padded" else sum(map(len, prompt.options))
        assert scored.stats.forward_tokens == (
            len(prompt.prefix) - scored.stats.reused_tokens + options
        )
    assert logprobs.stats.reused_tokens > 0


def test_packed_mask_lets_each_option_see_the_prefix_and_itself() -> None:
    mask = packed_mask([2, 1, 3], 4, torch.float32, "cpu")
    assert mask.shape == (1, 1, 6, 10)
    seen = (mask[0, 0] == 0).int().tolist()
    assert seen == [
        [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 1, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 1, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
        [1, 1, 1, 1, 0, 0, 0, 1, 1, 1],
    ]
    assert float(mask.min()) == torch.finfo(torch.float32).min


def test_reuse_when_the_new_prefix_extends_the_cached_one(
    setup: LocalSetup, model: Any, tokenizer: Any
) -> None:
    """The whole cached prefix is reused (nothing to cut back) and the scores stay exact."""
    first = prompt_for(setup, tokenizer, records(setup)[0])
    longer = OptionPrompt(first.prefix + first.options[0], first.options, first.texts)
    logprobs = SharedPrefixLogprobs(model, tokenizer)
    logprobs.option_logprobs(first)
    scored = logprobs.option_logprobs(longer)
    assert scored.stats.reused_tokens == len(first.prefix)
    assert_close(scored.logprobs, naive_option_logprobs(model, longer))


def test_sliding_window_model_scores_equal_naive(setup: LocalSetup, tokenizer: Any) -> None:
    """A sliding-window cache cannot be cut back: options run padded on a copy, no reuse."""
    from transformers import MistralConfig, MistralForCausalLM

    torch.manual_seed(0)
    window = 16
    sliding: Any = MistralForCausalLM(
        MistralConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            sliding_window=window,
            initializer_range=0.5,
        )
    )
    sliding.eval()
    for chunk in (64, None):
        logprobs = SharedPrefixLogprobs(
            sliding, tokenizer, option_batch_size=3, prefill_chunk=chunk
        )
        assert logprobs.croppable is False
        assert not logprobs.packed and not logprobs.fast_attention
        for record in records(setup)[:3]:
            prompt = prompt_for(setup, tokenizer, record)
            assert len(prompt.prefix) > 4 * window
            scored = logprobs.option_logprobs(prompt)
            assert_close(scored.logprobs, naive_option_logprobs(sliding, prompt))
            # per batch of options (3, then 1) a copy of the prefix's cache, repeated per
            # option where there are several; a layer keeps its last window - 1 positions
            held = (window - 1) * cached_bytes_per_token(sliding)
            assert scored.stats.cache_copies == 3
            assert scored.stats.copied_bytes == held * (1 + 3) + held
        assert logprobs.stats.reused_tokens == 0


def test_choice_is_argmax_of_normalised_scores() -> None:
    logprobs = [[-1.0, -1.0], [-0.5, -0.5, -0.5, -0.5], [-3.0], [-0.5, -0.5]]
    texts = ["ab", "abcdefgh", "a", "ab"]
    by_tokens = score_options(logprobs, texts, "tokens")
    assert [s.score for s in by_tokens] == [-1.0, -0.5, -3.0, -0.5]
    assert chosen(by_tokens).letter == "b"  # tie with (d): the earliest wins
    assert chosen(score_options(logprobs, texts, "sum")).letter == "d"
    by_chars = score_options(logprobs, texts, "chars")
    assert chosen(by_chars).letter == "b" and by_chars[1].score == -0.25
    assert [(s.tokens, s.chars) for s in by_chars] == [(2, 2), (4, 8), (1, 1), (2, 2)]


def test_truncation_cuts_oldest_messages_and_keeps_session_system(
    setup: LocalSetup, tokenizer: Any
) -> None:
    record = max(records(setup), key=lambda r: r.end_index)
    history = open_context_store(setup.contexts).history(record.context_id, record.end_index)
    question = [ChatMessageUser(content=record.question)]
    bodies = record.options.bodies()
    _, full, untouched = fit_prompt(tokenizer, history, question, "keep", bodies, 4096)
    assert untouched.dropped_messages == 0 and untouched.dropped_tokens == 0
    window = full.length() // 2
    messages, prompt, truncation = fit_prompt(tokenizer, history, question, "keep", bodies, window)
    assert prompt.length() <= window
    assert truncation.dropped_messages > 0
    assert truncation.dropped_tokens == len(full.prefix) - len(prompt.prefix) > 0
    assert truncation.prefix_tokens == len(prompt.prefix)
    # the kept messages are the newest ones, behind the system message of their session
    kept = messages[:-1]
    assert isinstance(kept[0], ChatMessageSystem)
    assert kept[1:] == list(history[len(history) - len(kept) + 1 :])
    # as few messages as possible were cut: one more message would not fit
    _, _, one_less = fit_prompt(tokenizer, history, question, "keep", bodies, window + 1)
    assert one_less.dropped_messages <= truncation.dropped_messages


def test_window_too_small_for_any_history_fails(setup: LocalSetup, tokenizer: Any) -> None:
    record = max(records(setup), key=lambda r: r.end_index)
    history = open_context_store(setup.contexts).history(record.context_id, record.end_index)
    question = [ChatMessageUser(content=record.question)]
    bodies = record.options.bodies()
    _, bare, _ = fit_prompt(tokenizer, (), question, "keep", bodies, 4096)
    with pytest.raises(ContextWindowError, match="no message of its"):
        fit_prompt(tokenizer, history, question, "keep", bodies, bare.length() + 2)
    with pytest.raises(ContextWindowError, match="without any history"):
        fit_prompt(tokenizer, history, question, "keep", bodies, bare.length() - 1)


def test_option_merging_with_the_prefix_is_encoded_alone(tokenizer: Any) -> None:
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


@pytest.mark.parametrize("window", [4096, 300])
def test_fit_prompt_with_a_kept_encoder_equals_fresh_encodings(
    setup: LocalSetup, tokenizer: Any, window: int
) -> None:
    """The encoder kept across questions (as the solver keeps it) changes no prompt, with
    or without truncation."""
    from inspect_personamem.data.order import order_records

    store = open_context_store(setup.contexts)
    encoder = PrefixEncoder(tokenizer)
    for record in order_records(records(setup), "grouped"):
        args = (
            tokenizer,
            store.history(record.context_id, record.end_index),
            [ChatMessageUser(content=record.question)],
            "keep",
            record.options.bodies(),
            window,
        )
        assert fit_prompt(*args, encoder) == fit_prompt(*args)  # type: ignore[arg-type]
    if window == 4096:  # no truncation: only each context's first question encoded whole
        assert encoder.whole == 2
