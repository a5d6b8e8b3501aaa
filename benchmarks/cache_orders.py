"""Cacheable share of input tokens for each question order, per split (simulation).

For each split (the real 32k question file where ../shared/data has it, else a
synthetic file of the 32k shape; synthetic files of the real 128k and 1M shapes), and
for PersonaMem-v2's benchmark subset at 32k and 128k (a synthetic subset of its real
shape: 200 personas, 6-42 questions each, grouped by persona in the file), prints the
share of input tokens a provider could serve from its prompt cache when Inspect sends
the questions in each order, and that share as a fraction of the ideal (one request at
a time, no expiry). `interleaved` is the default order (blocks of at
least `order.INTERLEAVE_BLOCK` contexts); `interleaved-all` round-robins across all
contexts at once (`-T interleave_block=0`). Usage:

    python benchmarks/cache_orders.py [--concurrency 1 4 10 32 64] [--latency 20 60]
        [--ttl 300]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from inspect_personamem.cost.prompt_cache import (
    CacheSettings,
    ideal_cached_tokens,
    simulate,
)
from inspect_personamem.data.order import INTERLEAVE_BLOCK, ORDERS, order_records
from inspect_personamem.data.requests import Request
from inspect_personamem.datasets.v1.cost import requests_for
from inspect_personamem.datasets.v1.generator import (
    SHAPES,
    context_sizes,
    question_rows,
    write_questions,
)
from inspect_personamem.datasets.v1.records import QuestionRecord, read_questions
from inspect_personamem.datasets.v1.splits import SPLITS, Split
from inspect_personamem.datasets.v2.cost import requests_for as v2_requests
from inspect_personamem.datasets.v2.generator import generate_v2
from inspect_personamem.datasets.v2.records import read_questions as read_v2_questions
from inspect_personamem.datasets.v2.spec import LENGTHS as V2_LENGTHS
from inspect_personamem.types import SampleOrder

REAL_32K = Path(__file__).resolve().parents[2] / "shared" / "data" / "questions_32k.csv"


def split_records(split: Split, folder: Path) -> tuple[list[QuestionRecord], str]:
    """The real 32k questions if present, else a synthetic file of the split's shape."""
    if split == "32k" and REAL_32K.is_file():
        return read_questions(REAL_32K, split), "real file"
    shape = SHAPES[split]
    sizes = context_sizes(shape.contexts, shape.min_messages, shape.max_messages)
    path = folder / f"questions_{split}.csv"
    rows = question_rows(
        split, sizes, shape.questions, message_chars=shape.message_chars, sessions=shape.sessions
    )
    write_questions(path, rows)
    return read_questions(path, split), "synthetic, real shape"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 10, 32, 64])
    parser.add_argument("--latency", type=float, nargs="+", default=[20.0, 60.0])
    parser.add_argument("--ttl", type=float, default=300.0)
    args = parser.parse_args()
    columns: list[tuple[str, SampleOrder, int]] = [
        ("interleaved", "interleaved", INTERLEAVE_BLOCK),
        ("interleaved-all", "interleaved", 0),
        *((order, order, INTERLEAVE_BLOCK) for order in ORDERS if order != "interleaved"),
    ]
    print(
        f"cache lifetime {args.ttl:g} s; cells: cached share of input tokens "
        "(fraction of the ideal)\n"
    )
    header = "| split | latency | concurrency | ideal | " + " | ".join(c[0] for c in columns) + " |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    with tempfile.TemporaryDirectory() as tmp:
        for split in SPLITS:
            records, kind = split_records(split, Path(tmp))
            orders = {
                name: requests_for(order_records(records, order, block))
                for name, order, block in columns
            }
            _rows(f"{split} ({kind}, {len(records)} questions)", orders, args)
        v2_records = read_v2_questions(generate_v2(Path(tmp) / "v2"), "benchmark")
        for length in V2_LENGTHS:
            requests = v2_requests(v2_records, length)
            orders = {name: order_records(requests, order, block) for name, order, block in columns}
            label = f"v2 benchmark {length} (synthetic, real shape, {len(requests)} questions)"
            _rows(label, orders, args)


def _rows(label: str, orders: dict[str, list[Request]], args: argparse.Namespace) -> None:
    """One table row per latency and concurrency: each order's cached share."""
    base = orders["file"]
    ideal = ideal_cached_tokens(base) / sum(r.input_tokens for r in base)
    for latency in args.latency:
        for concurrency in args.concurrency:
            settings = CacheSettings(concurrency, latency, args.ttl)
            cells = []
            for requests in orders.values():
                share = simulate(requests, settings).share
                cells.append(f"{share:.1%} ({share / ideal:.2f})")
            print(
                f"| {label} | {latency:g} s | {concurrency} | {ideal:.1%} | "
                + " | ".join(cells)
                + " |"
            )


if __name__ == "__main__":
    main()
