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
at most about `BUDGET` characters' worth of finished prompts, however long it is. At
the first long prompt it also has glibc map large blocks on their own
(`map_large_blocks`), so that a freed prompt's memory goes back at once.
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


def _glibc(function: str) -> Callable[..., int] | None:
    """A function of glibc's allocator, where the C library is glibc (Linux); else None."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        found: Callable[..., int] = getattr(ctypes.CDLL(name), function)
        return found
    except (OSError, AttributeError):
        return None


TRIM: Final = _glibc("malloc_trim")
MALLOPT: Final = _glibc("mallopt")
M_MMAP_THRESHOLD: Final = -3
"""`mallopt`'s parameter number for the size from which a block is mapped on its own."""
MAPPED_FROM: Final = 1 << 20
"""Blocks of 1 MiB and more (a history, its logged JSON) are mapped on their own."""


def map_large_blocks() -> None:
    """Have glibc map each block of `MAPPED_FROM` bytes or more on its own, and unmap it
    when it is freed. By default glibc raises that threshold to the largest block freed
    so far (up to 32 MB), so multi-MB prompts and their JSON went into the heap, whose
    freed pages it keeps until a trim: at the peak of a ten-persona run (2,170 queries)
    it held 1,173 MB free and 260 MB in use (`mallinfo2`). Setting the threshold turns
    that adjustment off."""
    if MALLOPT is not None:
        MALLOPT(M_MMAP_THRESHOLD, MAPPED_FROM)


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
    prepare: Callable[[], None] = map_large_blocks
    """Run once, at the first long prompt (`map_large_blocks`)."""
    since: int = 0
    prepared: bool = False
    collections: int = 0
    seconds: float = 0.0

    def sent(self, chars: int) -> None:
        """A prompt of `chars` characters is about to be sent."""
        if chars < self.small:
            return
        if not self.prepared:
            self.prepared = True
            self.prepare()
        self.since += chars
        if self.since >= self.budget:
            self.since = 0
            start = time.process_time()
            self.collect()
            self.seconds += time.process_time() - start
            self.collections += 1


COLLECTOR: Final = Collector()
"""The process's collector (one schedule for every task a process runs)."""
