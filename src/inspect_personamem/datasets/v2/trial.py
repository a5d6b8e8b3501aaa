"""What `inspect-personamem try` runs on PersonaMem-v2: a small synthetic benchmark
subset (`generator.py`), asked at its 32k histories."""

from __future__ import annotations

import dataclasses
import math
from typing import Final

from inspect_personamem.datasets.declared import Trial
from inspect_personamem.datasets.v2.generator import BENCHMARK_SHAPE, V2Shape, generate_v2

QUESTIONS_PER_PERSONA: Final = 10
"""At most, in the subset `try` writes."""


def trial(*, count: int, seed: int, task: str) -> Trial:
    """The subset `try` writes (`count` questions, rounded up), run on `<task>_32k`."""
    shape = try_shape(count)
    return Trial(
        f"inspect_personamem/{task}_32k",
        lambda folder: generate_v2(folder, shape=shape, seed=seed),
        "generated",
    )


def try_shape(questions: int) -> V2Shape:
    """A small subset of `questions` questions, rounded up to spread them evenly over
    personas of at most ten; histories of 40-80 messages of the benchmark's sizes (a few
    thousand tokens: the snippet-to-query distances span several bins)."""
    personas = math.ceil(questions / QUESTIONS_PER_PERSONA)
    per_persona = math.ceil(questions / personas)
    return dataclasses.replace(
        BENCHMARK_SHAPE,
        personas=personas,
        min_messages=40,
        max_messages=80,
        min_questions=per_persona,
        max_questions=per_persona,
    )
