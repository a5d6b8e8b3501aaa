"""Finished samples' prompts freed as a run goes, not when Python gets round to it.

A finished sample's transcript is cyclic garbage (Inspect's transcript and its views
refer to one another), and it holds the sample's whole prompt twice: the history's
messages and their logged snapshot in the model event. Python runs a full collection
when the objects promoted since the last one reach a quarter of those that survived
it: a count of objects, blind to their size. A 400k-token history is a few objects of
several MB each, so a run of long prompts kept hundreds of finished samples' prompts,
and its peak memory grew with its number of questions (`benchmarks/v3_scale.py`:
1.5 GB at 217 questions of one persona, 2.3 GB at 434).

The answering solver tells `COLLECTOR` the size of each prompt it sends; once `BUDGET`
characters have been sent since the last full collection, it runs one, so a run holds
at most about `BUDGET` characters' worth of finished prompts, however long it is.
Prompts under `SMALL` characters are not counted: a run of short prompts (v1's 32k
split, `history=none`) keeps Python's own schedule and pays nothing. A full
collection costs a few hundred ms of CPU on a loaded persona (`collection_cpu_s` in
the benchmark), once every few long prompts.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

BUDGET: Final = 16_000_000
"""Characters of long prompts sent between two full collections (about ten
400k-token histories)."""
SMALL: Final = 100_000
"""Prompts shorter than this (about 25k tokens) are not counted."""


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, where the C library is glibc (Linux); else None."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
        return trim
    except (OSError, AttributeError):
        return None


TRIM: Final = _malloc_trim()


def collect_and_trim() -> int:
    """A full collection, then the freed heap pages handed back to the system: glibc
    keeps freed memory in its heap, where the multi-MB prompts just freed leave holes
    that later, larger prompts do not fit (so the process's resident memory still grew
    by about 1 MB a question with the garbage collected)."""
    found = gc.collect()
    if TRIM is not None:
        TRIM(0)
    return found


@dataclass
class Collector:
    """Counts the characters of long prompts sent; collects once `budget` is reached."""

    budget: int = BUDGET
    small: int = SMALL
    collect: Callable[[], int] = collect_and_trim
    since: int = 0
    collections: int = 0
    seconds: float = 0.0

    def sent(self, chars: int) -> None:
        """A prompt of `chars` characters is about to be sent."""
        if chars < self.small:
            return
        self.since += chars
        if self.since >= self.budget:
            self.since = 0
            start = time.process_time()
            self.collect()
            self.seconds += time.process_time() - start
            self.collections += 1


COLLECTOR: Final = Collector()
"""The process's collector (one schedule for every task a process runs)."""
