"""Shared-prefix log-likelihood scoring against the naive per-option forward pass.

One process, one random Llama-style model built directly on the device (`--shape`,
`--dtype`, `--device`; nothing goes through disk), one synthetic split in the real
splits' shapes or a small one for CPU (`--split-shape`), its questions in the order
answer=logprob sends them ("grouped": by context, ascending end index). Four rows:

- naive: one full forward pass of history + question + option per option, over the
  first `--naive-questions` questions;
- shared prefix: the history + question once per question, its KV cache reused for
  the four options (packed into one pass), same questions;
- shared + reuse: the same, keeping the cache from one question to the next and
  running only what the new prefix does not share, same questions;
- shared + reuse over the whole split;
- with `--through-inspect`, the whole split again through `inspect eval` with
  `answer=logprob` and Inspect's `hf/` provider (the model saved to a temporary folder
  and loaded from it), the path users run; each question's logged evidence (prefix,
  forward and reused tokens, summed option log-probabilities) is checked against the
  row before.

Each row: forward tokens, wall time (model calls only, the device synchronised before
and after each; the first three rows: per question the best of `--repeats`; through
Inspect: from the first model call's start to the last one's end, Inspect's work between
them included, and the call's time is broken down apart), tokens/s,
achieved FLOP/s and its share of the peak, peak device memory (CUDA only), and its
agreement with the naive
log-probabilities on the naive questions (largest absolute difference of a token's
log-probability; questions whose chosen option, by mean log-probability per token, is
the naive one's).

FLOPs are estimated, counting useful work only (causal attention: a token attends to
the keys at and before its position; options only to the prefix and their own tokens):

    2 * B * T + 2 * d * V * R + 4 * L * (h * d_h) * K

B: parameters outside the embedding and output layers; T: forward tokens; d: hidden
size; V: vocabulary; R: positions whose logits are computed; L: layers; h * d_h: query
heads times head size; K: (query, key) pairs attended.

Share of peak: against `--peak-tflops`, by default the dense bf16/fp16 tensor-core peak
of a known GPU (`PEAKS`), otherwise "n/a". In float32 and with a tolerance unset, the
run fails if a difference from the naive log-probabilities exceeds 1e-4.

    PYTHONPATH=src python benchmarks/logprob_prefix.py --repeats 3
    PYTHONPATH=src python benchmarks/logprob_prefix.py --shape llama-3.1-8b \\
        --dtype bfloat16 --device cuda --split-shape 32k
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import itertools
import json
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import inspect_ai
import torch
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessageUser

from inspect_personamem.answer.logprob.choice import OptionScore, chosen, score_options
from inspect_personamem.answer.logprob.hf import SharedPrefixLogprobs, naive_option_logprobs
from inspect_personamem.answer.logprob.stats import ForwardStats, Scored
from inspect_personamem.answer.logprob.template import OptionPrompt, PrefixEncoder
from inspect_personamem.answer.logprob.truncation import fit_prompt
from inspect_personamem.data.options import LETTERS
from inspect_personamem.data.order import order_records
from inspect_personamem.datasets.v1.contexts import open_context_store
from inspect_personamem.datasets.v1.generator import SHAPES, SplitShape, generate_shape
from inspect_personamem.datasets.v1.records import read_questions
from inspect_personamem.datasets.v1.splits import Split
from inspect_personamem.offline.random_model import ModelShape, random_llama, word_tokenizer

MODEL_SHAPES = {
    "tiny": ModelShape(hidden=256, layers=4, heads=4, kv_heads=2, intermediate=512),
    "llama-3.1-8b": ModelShape(
        hidden=4096,
        layers=32,
        heads=32,
        kv_heads=8,
        intermediate=14336,
        vocab=128256,
        rope_theta=500000.0,
    ),
}
"""`tiny` (vocabulary: the word tokenizer's 2000) is the CPU benchmark's model."""

SPLIT_SHAPES: dict[str, tuple[Split, SplitShape]] = {
    **{name: (name, shape) for name, shape in SHAPES.items()},
    "small": ("32k", SplitShape(2, 100, 140, 8, 300, 5)),
}
"""The real splits' shapes and a small one that runs in minutes on one CPU core."""

WINDOWS: dict[Split, int] = {"32k": 32768, "128k": 131072, "1M": 1048576}

PEAKS = {"H200": 989.4, "H100 80GB HBM3": 989.4}
"""Dense bf16/fp16 tensor-core TFLOP/s by device name (NVIDIA's H100 SXM / H200
datasheets: 1,979 with sparsity, half that dense); used for bfloat16 and float16 only."""

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass
class Work:
    """What a computation cost: forward tokens, positions with logits, attended pairs."""

    tokens: int = 0
    logit_rows: int = 0
    pairs: int = 0

    def add(self, other: Work) -> None:
        self.tokens += other.tokens
        self.logit_rows += other.logit_rows
        self.pairs += other.pairs


@dataclass(frozen=True)
class Evidence:
    """One question as the log's `logprob` metadata records it: its prompt's size, what
    it ran and reused, and per option the summed log-probability and tokens."""

    prefix_tokens: int
    forward_tokens: int
    reused_tokens: int
    option_logprobs: tuple[float, ...]
    option_tokens: tuple[int, ...]

    @classmethod
    def logged(cls, sample: EvalSample) -> Evidence:
        logprob = (sample.metadata or {})["logprob"]
        return cls(
            logprob["prefix_tokens"],
            logprob["forward_tokens"],
            logprob["reused_tokens"],
            tuple(option["logprob"] for option in logprob["options"]),
            tuple(option["tokens"] for option in logprob["options"]),
        )

    def choice(self) -> str:
        """The letter `chosen` picks by mean log-probability per token, as `choice` does
        from token log-probabilities."""
        scores = [
            OptionScore(letter, total, tokens, 0, total / tokens)
            for letter, total, tokens in zip(
                LETTERS, self.option_logprobs, self.option_tokens, strict=False
            )
        ]
        return chosen(scores).letter

    def work(self) -> Work:
        return shared_work(self.prefix_tokens, self.option_tokens, self.reused_tokens)


def naive_work(prompt: OptionPrompt) -> Work:
    """One causal pass over prefix + option per option, logits for the option's tokens."""
    work = Work()
    for option in prompt.options:
        length = len(prompt.prefix) + len(option)
        work.add(Work(length, len(option) + 1, length * (length + 1) // 2))
    return work


def shared_work(prefix: int, options: Sequence[int], reused: int) -> Work:
    """A `prefix`-token prefix after its `reused` cached tokens (logits for its last
    token), then each option's tokens (`options`: their counts) attending to the prefix
    and to their own earlier tokens."""
    work = Work(prefix - reused, 1, (prefix * (prefix + 1) - reused * (reused + 1)) // 2)
    for n in options:
        work.add(Work(n, n, n * prefix + n * (n + 1) // 2))
    return work


def prompt_work(prompt: OptionPrompt, reused: int) -> Work:
    return shared_work(len(prompt.prefix), [len(option) for option in prompt.options], reused)


@dataclass
class Row:
    """One method's totals over its questions, and per question its log-probabilities."""

    method: str
    naive: bool = False
    questions: int = 0
    stats: ForwardStats = field(default_factory=ForwardStats)
    work: Work = field(default_factory=Work)
    wall: float = 0.0
    logprobs: list[list[list[float]]] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    """Per question id (the whole split's rows only)."""
    peak_bytes: int | None = None
    """Device memory at its highest during one of the row's calls (CUDA only)."""


Run = Callable[[OptionPrompt], tuple[list[list[float]], ForwardStats]]


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; each row is printed and (with `--json`) written as soon as it is
    measured, so a run cut short still reports what it did."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    split, split_shape = SPLIT_SHAPES[args.split_shape]
    overrides = {
        name: getattr(args, name)
        for name in ("contexts", "min_messages", "max_messages", "questions", "message_chars")
        if getattr(args, name) is not None
    }
    split_shape = dataclasses.replace(split_shape, **overrides)
    shape = dataclasses.replace(
        MODEL_SHAPES[args.shape],
        **{
            name: getattr(args, name)
            for name in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab")
            if getattr(args, name) is not None
        },
    )
    window = args.window or WINDOWS[split]
    began = datetime.now(timezone.utc).isoformat(timespec="seconds")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        questions_file, contexts_file = generate_shape(folder, split, shape=split_shape)
        store = open_context_store(contexts_file)
        records = order_records(read_questions(questions_file, split), "grouped")
        corpus = (
            message["content"]
            for line in contexts_file.read_text(encoding="utf-8").splitlines()
            for messages in json.loads(line).values()
            for message in messages
        )
        tokenizer = word_tokenizer(corpus, max_positions=window)
        generating = time.perf_counter() - started
        started = time.perf_counter()
        model = random_llama(
            tokenizer,
            shape,
            max_positions=window,
            initializer_range=0.02,
            dtype=DTYPES[args.dtype],
            device=device,
        )
        synchronize(device)
        building = time.perf_counter() - started
        sizes = ModelSizes.of(model)
        naive_count = min(args.naive_questions, len(records))
        naive_ids = [record.question_id for record in records[:naive_count]]
        report: dict[str, Any] = {
            "started": began,
            "software": software(device),
            "model": {
                **dataclasses.asdict(shape),
                "vocab": sizes.vocab,
                "parameters": sizes.parameters,
                "dtype": args.dtype,
                "device": device_name(device),
                "threads": torch.get_num_threads() if device.type == "cpu" else None,
            },
            "split": {
                "shape": args.split_shape,
                **dataclasses.asdict(split_shape),
                "window": window,
                "naive_questions": naive_count,
                "naive_contexts": len({r.context_id for r in records[:naive_count]}),
            },
            "seconds": {"generate_split": generating, "build_model": building},
            "repeats": args.repeats,
            "peak_tflops": peak_tflops(args, device),
            "rows": [],
        }
        print_header(report)
        published = Published(report, sizes, args.json)

        def prompts() -> Iterator[tuple[str, OptionPrompt]]:
            encoder = PrefixEncoder(tokenizer)
            for record in records:
                yield (
                    record.question_id,
                    fit_prompt(
                        tokenizer,
                        store.history(record.context_id, record.end_index),
                        [ChatMessageUser(content=record.question)],
                        "keep",
                        record.options.bodies(),
                        window,
                        encoder,
                    )[1],
                )

        started = time.perf_counter()
        first = [prompt for _, prompt in itertools.islice(prompts(), naive_count)]
        encoding = time.perf_counter() - started

        for row in compare(model, tokenizer, first, args):
            published.row(row, naive_ids)
        whole, encoding_all = whole_split(model, tokenizer, prompts(), naive_count, args)
        prefixes = [evidence.prefix_tokens for evidence in whole.evidence.values()]
        report["split"]["prefix_tokens"] = [
            min(prefixes),
            max(prefixes),
            sum(prefixes) / len(prefixes),
        ]
        report["seconds"]["prompts"] = encoding + encoding_all
        published.row(whole, naive_ids)
        if args.profile:
            print(profile_reuse(model, tokenizer, first, args), flush=True)
        if args.through_inspect:
            started = time.perf_counter()
            model_folder = folder / "model"
            model.save_pretrained(model_folder)
            tokenizer.save_pretrained(model_folder)
            report["seconds"]["save_model"] = time.perf_counter() - started
            del model  # Inspect loads its own copy
            free_device_memory(device)
            logged, timing = through_inspect(folder, model_folder, split, window, args)
            report["through_inspect"] = {
                **check_evidence(whole.evidence, logged.evidence),
                **timing,
            }
            published.row(logged, naive_ids)

    print_footer(report)
    published.write()
    tolerance = tolerance_of(args)
    worst = max(row["max_abs_difference"] or 0.0 for row in report["rows"])
    if tolerance is not None and worst > tolerance:
        raise SystemExit(
            f"the shared-prefix log-probabilities differ from the naive ones by {worst:.2e}"
        )
    logged_difference = report.get("through_inspect", {}).get("max_abs_difference", 0.0)
    if tolerance is not None and logged_difference > tolerance:
        raise SystemExit(
            f"the log-probabilities logged through Inspect differ from the whole split's by "
            f"{logged_difference:.2e} (per token of an option)"
        )
    return report


class Published:
    """The report as far as it goes: each row added is printed at once (the table's head
    before the first) and the whole report written to `path` (when given) again."""

    def __init__(self, report: dict[str, Any], sizes: ModelSizes, path: Path | None) -> None:
        self.report, self.sizes, self.path = report, sizes, path
        self.naive: list[list[list[float]]] = []
        self.write()

    def row(self, row: Row, naive_ids: Sequence[str]) -> None:
        """Add `row` (the naive one first: the others are compared with it)."""
        if row.naive:
            self.naive = row.logprobs
        count = self.report["split"]["naive_questions"]
        difference: float | None
        if row.logprobs:
            difference, agree = agreement(row.logprobs[:count], self.naive)
        else:  # through Inspect: the log holds summed log-probabilities, checked apart
            difference = None
            agree = sum(
                row.evidence[i].choice() == choice(n)
                for i, n in zip(naive_ids, self.naive, strict=True)
            )
        flops = self.sizes.flops(row.work)
        tflops = flops / row.wall / 1e12
        peak = self.report["peak_tflops"]
        stats = row.stats
        measured = {
            "method": row.method,
            "questions": row.questions,
            "forward_tokens": stats.forward_tokens,
            "reused_tokens": stats.reused_tokens,
            "passes": stats.passes,
            "cache_copies": stats.cache_copies,
            "copied_bytes": stats.copied_bytes,
            "wall_s": row.wall,
            "tokens_per_s": stats.forward_tokens / row.wall,
            "flops": flops,
            "tflops_per_s": tflops,
            "share_of_peak": tflops / peak if peak else None,
            "peak_gib": row.peak_bytes / 2**30 if row.peak_bytes is not None else None,
            "max_abs_difference": difference,
            "choices_agree": agree,
        }
        rows = self.report["rows"]
        if not rows:
            print(TABLE_HEAD, flush=True)
        rows.append(measured)
        print(table_line(measured, count), flush=True)
        self.write()

    def write(self) -> None:
        """Write the report, replacing the last one whole (never a half-written file)."""
        if self.path is None:
            return
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps(self.report, indent=2) + "\n", encoding="utf-8")
        partial.replace(self.path)


def software(device: torch.device) -> dict[str, str | None]:
    """The versions the numbers depend on, and the GPU (CUDA only)."""
    import transformers

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "inspect_ai": inspect_ai.__version__,
        "cuda": torch.version.cuda if device.type == "cuda" else None,
        "gpu": device_name(device) if device.type == "cuda" else None,
    }


def tolerance_of(args: argparse.Namespace) -> float | None:
    """`--tolerance`; by default 1e-4 in float32, none in half precision."""
    if args.tolerance is not None:
        return float(args.tolerance)
    return 1e-4 if args.dtype == "float32" else None


def compare(
    model: Any, tokenizer: Any, prompts: list[OptionPrompt], args: argparse.Namespace
) -> list[Row]:
    """Naive, shared prefix and shared + reuse over `prompts`; per question the best of
    the repeats (load from other processes only ever adds time). Within a repeat the
    three take the questions in turn, each method seeing them in order."""

    def methods() -> list[tuple[Row, Run]]:
        shared = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=args.prefill_chunk)
        reusing = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=args.prefill_chunk)

        def naive(prompt: OptionPrompt) -> tuple[list[list[float]], ForwardStats]:
            stats = ForwardStats()
            return naive_option_logprobs(model, prompt, stats), stats

        def per_question(prompt: OptionPrompt) -> tuple[list[list[float]], ForwardStats]:
            shared.reset()
            scored = shared.option_logprobs(prompt)
            return scored.logprobs, scored.stats

        def across(prompt: OptionPrompt) -> tuple[list[list[float]], ForwardStats]:
            scored = reusing.option_logprobs(prompt)
            return scored.logprobs, scored.stats

        return [
            (Row("naive, one full pass per option", naive=True), naive),
            (Row("shared prefix"), per_question),
            (Row("shared prefix + reuse across questions"), across),
        ]

    # warm-up, not counted: kernels chosen, memory pools grown
    naive_option_logprobs(model, prompts[0])
    SharedPrefixLogprobs(model, tokenizer, prefill_chunk=args.prefill_chunk).option_logprobs(
        prompts[0]
    )
    device = model.device
    best: list[list[float]] = []
    for _ in range(args.repeats):
        runs = methods()
        best = best or [[float("inf")] * len(prompts) for _ in runs]
        for number, prompt in enumerate(prompts):
            for times, (row, run) in zip(best, runs, strict=True):
                synchronize(device)
                reset_peak(device)
                started = time.perf_counter()
                logprobs, stats = run(prompt)
                synchronize(device)
                times[number] = min(times[number], time.perf_counter() - started)
                row.peak_bytes = max_peak(row.peak_bytes, device)
                row.questions += 1
                row.stats.add(stats)
                row.logprobs.append(logprobs)
                row.work.add(
                    naive_work(prompt) if row.naive else prompt_work(prompt, stats.reused_tokens)
                )
    rows = [row for row, _ in runs]  # the last repeat's: every repeat counts the same
    del runs  # frees the kept cache
    for row, times in zip(rows, best, strict=True):
        row.wall = sum(times)
    return rows


def whole_split(
    model: Any,
    tokenizer: Any,
    prompts: Iterator[tuple[str, OptionPrompt]],
    keep: int,
    args: argparse.Namespace,
) -> tuple[Row, float]:
    """Shared prefix + reuse over every question, once, each prompt built as it is
    needed (a whole 128k split's prompts would not fit in memory); the row and the
    seconds spent building prompts. Log-probabilities are kept for the first `keep`
    questions, each question's evidence for all."""
    row = Row("shared prefix + reuse, whole split")
    logprobs = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=args.prefill_chunk)
    device = model.device
    building = 0.0
    reset_peak(device)
    started = time.perf_counter()
    for question_id, prompt in prompts:
        building += time.perf_counter() - started
        synchronize(device)
        started = time.perf_counter()
        scored = logprobs.option_logprobs(prompt)
        synchronize(device)
        row.wall += time.perf_counter() - started
        row.questions += 1
        row.stats.add(scored.stats)
        row.work.add(prompt_work(prompt, scored.stats.reused_tokens))
        row.evidence[question_id] = Evidence(
            len(prompt.prefix),
            scored.stats.forward_tokens,
            scored.stats.reused_tokens,
            tuple(float(sum(option)) for option in scored.logprobs),
            tuple(len(option) for option in prompt.options),
        )
        if len(row.logprobs) < keep:
            row.logprobs.append(scored.logprobs)
        started = time.perf_counter()
    building += time.perf_counter() - started
    row.peak_bytes = max_peak(None, device)
    return row, building


def profile_reuse(
    model: Any, tokenizer: Any, prompts: list[OptionPrompt], args: argparse.Namespace
) -> str:
    """`torch.profiler` over `prompts` after the first, each question on the cache the
    one before kept (where it shares a context): the chrome trace written to
    `args.profile`, and the ops' table by time on the device (the CPU where there is
    none), by input shape."""
    from torch.profiler import ProfilerActivity, profile

    device = model.device
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    logprobs = SharedPrefixLogprobs(model, tokenizer, prefill_chunk=args.prefill_chunk)
    logprobs.option_logprobs(prompts[0])
    synchronize(device)
    profiled = ForwardStats()
    with profile(activities=activities, record_shapes=True) as profiler:
        for prompt in prompts[1:]:
            profiled.add(logprobs.option_logprobs(prompt).stats)
        synchronize(device)
    profiler.export_chrome_trace(str(args.profile))
    sort = "self_device_time_total" if device.type == "cuda" else "self_cpu_time_total"
    table = profiler.key_averages(group_by_input_shape=True).table(sort_by=sort, row_limit=25)
    return (
        f"\nprofile of the naive questions after the first, with reuse "
        f"({profiled.passes} passes, {profiled.cache_copies} cache copies of "
        f"{profiled.copied_bytes / 2**20:.1f} MiB; trace: {args.profile}):\n{table}"
    )


def through_inspect(
    data: Path, model_folder: Path, split: Split, window: int, args: argparse.Namespace
) -> tuple[Row, dict[str, float]]:
    """The whole split through `inspect eval` (answer=logprob, the hf/ provider loading
    `model_folder`), as users run it: the row from the log, its wall time from the first
    model call's start to the last one's end (Inspect's work between them included); and
    where the call's time went (`Timing`)."""
    task_args: dict[str, Any] = {
        "data_dir": str(data),
        "answer": "logprob",
        "context_window": window,
    }
    if args.prefill_chunk is not None:
        task_args["prefill_chunk"] = args.prefill_chunk
    device = torch.device(args.device)
    reset_peak(device)
    calls: list[tuple[float, float]] = []
    option_logprobs = SharedPrefixLogprobs.option_logprobs

    def timed(self: SharedPrefixLogprobs, prompt: OptionPrompt) -> Scored:
        # the log-probabilities are copied to the host before it returns: the device is done
        started = time.perf_counter()
        scored = option_logprobs(self, prompt)
        calls.append((started, time.perf_counter()))
        return scored

    SharedPrefixLogprobs.option_logprobs = timed  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        logs = inspect_eval(
            f"inspect_personamem/personamem_{split}",
            task_args=task_args,
            model="hf/local",
            model_args={
                "model_path": str(model_folder),
                "device": args.device,
                "dtype": args.dtype,
            },
            log_dir=str(data / "logs"),
            display="none",
        )
        ended = time.perf_counter()
    except Exception:
        traceback.print_exc()
        sys.stderr.flush()
        raise SystemExit("inspect eval raised: the traceback is above") from None
    finally:
        SharedPrefixLogprobs.option_logprobs = option_logprobs  # type: ignore[method-assign]
    [log] = logs
    if log.status != "success" or not log.samples:
        raise SystemExit(eval_failure(log))
    row = Row("shared prefix + reuse, whole split, through inspect eval (hf/)")
    row.peak_bytes = max_peak(None, device)
    for sample in log.samples:
        evidence = Evidence.logged(sample)
        row.evidence[str(sample.id)] = evidence
        row.questions += 1
        row.stats.add(ForwardStats(evidence.forward_tokens, evidence.reused_tokens))
        row.work.add(evidence.work())
    row.wall = calls[-1][1] - calls[0][0]
    in_calls = sum(end - begin for begin, end in calls)
    timing = {
        "call_s": ended - started,
        "before_first_model_call_s": calls[0][0] - started,
        "model_calls_s": in_calls,
        "between_model_calls_s": row.wall - in_calls,
        "after_last_model_call_s": ended - calls[-1][1],
    }
    return row, timing


def eval_failure(log: EvalLog) -> str:
    """Print to stderr why `log`'s eval did not succeed (its error's traceback, else the
    first failed sample's; Inspect with display="none" shows neither); the one-line reason."""
    error = log.error
    failed = next((sample for sample in log.samples or [] if sample.error), None)
    if error is None and failed is not None:
        error = failed.error
    where = f"question_id {failed.id}: " if failed is not None else ""
    reason = (
        f"inspect eval did not succeed ({log.status}): {where}"
        f"{error.message if error else 'no samples'}"
    )
    if error is not None:
        print(error.traceback, file=sys.stderr)
    print(f"{reason}\nthe log: {log.location}", file=sys.stderr, flush=True)
    return reason


def check_evidence(expected: dict[str, Evidence], logged: dict[str, Evidence]) -> dict[str, Any]:
    """Each logged question's tokens against the benchmark's (any difference is an
    error: the benchmark would not be measuring what users run), and how far the
    logged log-probabilities are from it: the largest difference of an option's mean
    per token, and the questions whose choice agrees."""
    if logged.keys() != expected.keys():
        missing = sorted(expected.keys() - logged.keys())[:5]
        extra = sorted(logged.keys() - expected.keys())[:5]
        raise SystemExit(f"the log's questions differ: missing {missing}, unexpected {extra}")
    difference, agree = 0.0, 0
    for question_id, wanted in expected.items():
        got = logged[question_id]
        for name in ("prefix_tokens", "forward_tokens", "reused_tokens", "option_tokens"):
            if getattr(got, name) != getattr(wanted, name):
                raise SystemExit(
                    f"question_id {question_id}: the log's {name} {getattr(got, name)} differ "
                    f"from the benchmark's {getattr(wanted, name)}"
                )
        for x, y, n in zip(
            got.option_logprobs, wanted.option_logprobs, wanted.option_tokens, strict=True
        ):
            difference = max(difference, abs(x - y) / n)
        agree += got.choice() == wanted.choice()
    return {"questions": len(expected), "max_abs_difference": difference, "choices_agree": agree}


@dataclass(frozen=True)
class ModelSizes:
    """What the report and the FLOP estimate need of the model (kept apart from it, which
    is freed before Inspect loads its own copy)."""

    parameters: int
    non_embedding: int
    """Parameters outside the input embedding and the output layer (counted once if tied)."""
    hidden: int
    vocab: int
    layers: int
    width: int
    """Query heads times head size."""

    @classmethod
    def of(cls, model: Any) -> ModelSizes:
        config = model.config
        outside = {
            id(model.get_input_embeddings().weight),
            id(model.get_output_embeddings().weight),
        }
        head = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        return cls(
            parameters=sum(p.numel() for p in model.parameters()),
            non_embedding=sum(p.numel() for p in model.parameters() if id(p) not in outside),
            hidden=config.hidden_size,
            vocab=config.vocab_size,
            layers=config.num_hidden_layers,
            width=config.num_attention_heads * head,
        )

    def flops(self, work: Work) -> int:
        """The module docstring's formula."""
        return int(
            2 * self.non_embedding * work.tokens
            + 2 * self.hidden * self.vocab * work.logit_rows
            + 4 * self.layers * self.width * work.pairs
        )


def agreement(
    logprobs: list[list[list[float]]], reference: list[list[list[float]]]
) -> tuple[float, int]:
    """The largest absolute difference of a token's log-probability from `reference`, and
    the questions whose chosen option (mean log-probability per token) is the reference's."""
    difference, agree = 0.0, 0
    for question, expected in zip(logprobs, reference, strict=True):
        for option, wanted in zip(question, expected, strict=True):
            for x, y in zip(option, wanted, strict=True):
                difference = max(difference, abs(x - y))
        agree += choice(question) == choice(expected)
    return difference, agree


def choice(logprobs: list[list[float]]) -> str:
    return str(chosen(score_options(logprobs, [""] * len(logprobs), "tokens")).letter)


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (CUDA runs asynchronously)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type != "cpu":
        getattr(torch, device.type).synchronize()


def reset_peak(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def max_peak(previous: int | None, device: torch.device) -> int | None:
    """The larger of `previous` and the device memory allocated at its highest since
    `reset_peak` (CUDA only: None elsewhere)."""
    if device.type != "cuda":
        return None
    return max(previous or 0, torch.cuda.max_memory_allocated(device))


def free_device_memory(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return str(torch.cuda.get_device_name(device))
    return device.type


def peak_tflops(args: argparse.Namespace, device: torch.device) -> float | None:
    """`--peak-tflops`, else a known GPU's dense half-precision peak, else None."""
    if args.peak_tflops is not None:
        return float(args.peak_tflops)
    if args.dtype == "float32":
        return None
    name = device_name(device)
    return next((peak for key, peak in PEAKS.items() if key in name), None)


TABLE_HEAD = (
    "| method | questions | forward tokens | passes | cache copies | copied MiB | wall s "
    "| tokens/s | TFLOP/s | share of peak | peak GiB | max abs diff | choices agree |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def table_line(row: dict[str, Any], naive_questions: int) -> str:
    share, memory, difference = (
        row[key] for key in ("share_of_peak", "peak_gib", "max_abs_difference")
    )
    return (
        f"| {row['method']} | {row['questions']} | {row['forward_tokens']:,} "
        f"| {row['passes']:,} | {row['cache_copies']:,} | {row['copied_bytes'] / 2**20:,.1f} "
        f"| {row['wall_s']:.2f} | {row['tokens_per_s']:,.0f} | {row['tflops_per_s']:.3g} "
        f"| {f'{share:.0%}' if share is not None else 'n/a'} "
        f"| {f'{memory:.1f}' if memory is not None else 'n/a'} "
        f"| {f'{difference:.1e}' if difference is not None else 'n/a'} "
        f"| {row['choices_agree']}/{naive_questions} |"
    )


def print_header(report: dict[str, Any]) -> None:
    model, split, seconds = report["model"], report["split"], report["seconds"]
    threads = model["threads"]
    threads = f", {threads} CPU thread{'s' if threads > 1 else ''}" if threads else ""
    versions = ", ".join(f"{name} {value}" for name, value in report["software"].items() if value)
    print(f"started {report['started']}; {versions}")
    print(
        f"model: {model['parameters'] / 1e6:.3g}M parameters ({model['layers']} layers, hidden "
        f"{model['hidden']}, {model['heads']}/{model['kv_heads']} heads, intermediate "
        f"{model['intermediate']}, vocabulary {model['vocab']}), {model['dtype']} on "
        f"{model['device']}{threads}; built in {seconds['build_model']:.1f}s"
    )
    print(
        f"split: {split['shape']}, {split['questions']} questions over {split['contexts']} "
        f"contexts of {split['min_messages']}-{split['max_messages']} messages, window "
        f"{split['window']}; generated in {seconds['generate_split']:.1f}s"
    )
    peak = report["peak_tflops"]
    print(
        f"naive questions: the first {split['naive_questions']} in grouped order "
        f"({split['naive_contexts']} contexts); wall: model calls only, per question the "
        f"best of {report['repeats']} for the first three rows (measured together: printed "
        f"together), one run for the whole split; peak: "
        f"{f'{peak:g} TFLOP/s' if peak else 'unknown'}\n",
        flush=True,
    )


def print_footer(report: dict[str, Any]) -> None:
    split, seconds = report["split"], report["seconds"]
    low, high, mean = split["prefix_tokens"]
    print(
        f"\nprefixes {low}-{high} tokens (mean {mean:.0f}); prompts built in "
        f"{seconds['prompts']:.1f}s"
    )
    checked = report.get("through_inspect")
    if checked:
        questions = checked["questions"]
        print(
            f"through inspect eval: per question the logged prefix, forward and reused "
            f"tokens equal the whole split's ({questions}/{questions}); an option's mean "
            f"log-probability per token differs by at most {checked['max_abs_difference']:.1e}; "
            f"choices agree {checked['choices_agree']}/{questions}.\n"
            f"the call: {checked['call_s']:.1f}s = {checked['before_first_model_call_s']:.1f}s "
            f"before the first model call (Inspect's start, the model's load, the task's "
            f"setup) + {checked['model_calls_s']:.1f}s in model calls + "
            f"{checked['between_model_calls_s']:.2f}s between them "
            f"({checked['between_model_calls_s'] / max(questions - 1, 1) * 1000:.1f} ms a "
            f"question) + {checked['after_last_model_call_s']:.1f}s after the last; the model "
            f"was saved in {seconds['save_model']:.1f}s before the call"
        )
    sys.stdout.flush()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    model = parser.add_argument_group("model (a preset, then overrides)")
    model.add_argument("--shape", choices=sorted(MODEL_SHAPES), default="tiny")
    for name in ("hidden", "layers", "heads", "kv-heads", "intermediate", "vocab"):
        model.add_argument(f"--{name}", type=int)
    model.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    model.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ...")
    model.add_argument("--threads", type=int, default=1, help="CPU threads")
    model.add_argument(
        "--prefill-chunk", type=int, help="most prefix tokens in one pass (default: all)"
    )
    split = parser.add_argument_group("split (a shape, then overrides)")
    split.add_argument("--split-shape", choices=sorted(SPLIT_SHAPES), default="small")
    for name in ("contexts", "questions", "min-messages", "max-messages", "message-chars"):
        split.add_argument(f"--{name}", type=int)
    split.add_argument("--window", type=int, help="context window (default: the split's)")
    run = parser.add_argument_group("run")
    run.add_argument(
        "--naive-questions", type=int, default=8, help="questions of the first three rows"
    )
    run.add_argument("--repeats", type=int, default=1, help="first three rows: the best run")
    run.add_argument("--peak-tflops", type=float, help="for the share of peak")
    run.add_argument(
        "--tolerance",
        type=float,
        help="largest difference from naive allowed (default: 1e-4 in float32, else none)",
    )
    run.add_argument(
        "--through-inspect",
        action="store_true",
        help="also run the whole split through inspect eval (hf/ provider) and check its log",
    )
    run.add_argument("--json", type=Path, help="also write the results here")
    run.add_argument(
        "--profile",
        type=Path,
        metavar="TRACE",
        help="after the whole split, profile the naive questions after the first with reuse: "
        "print the ops' table and write the chrome trace to TRACE",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    main()
