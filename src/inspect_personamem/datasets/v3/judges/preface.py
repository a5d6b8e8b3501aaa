"""The preface every PersonaMem-v3 judge prompt but sycophancy's begins with
(`_JUDGE_PREFACE`, evaluation/prompts.py@dc56d425; the same text in 00de47db and in the
79,210-character copy), how a judge prompt embeds an object, and the digest of a fixed
text (`texts.TEXT_SHA256`, for the log).
"""

from __future__ import annotations

import hashlib
import json
from typing import Final

# evaluation/prompts.py@dc56d425f3279f85642617d9950f816ed1bd2a4a (`_JUDGE_PREFACE`)
JUDGE_PREFACE: Final = """You are an expert judge evaluating a personalized assistant's output.
Reason step-by-step before producing your final score. Base every score on the evidence
provided below — the user's held-out preferences and recent engagement window — NOT on
general assumptions about the user.
"""


def dumps(value: object) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2)`, as every judge prompt embeds."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def table(value: object) -> str:
    """A fixed table as the text its digest is taken of (sorted JSON)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
