"""The literal types shared across the package: the values a task parameter takes.

They sit at the bottom so that data, history, answer, scoring and report can all name
them without importing one another.
"""

from __future__ import annotations

from typing import Literal

HistoryName = Literal["full", "none", "evidence", "rag", "memory", "tools"]
"""What the model sees of the past (`-T history=...`)."""
AnswerName = Literal["choice", "logprob", "open"]
"""How the model answers (`-T answer=...`)."""
GraderSource = Literal["role", "self"]
"""Who grades open answers (`-T grader=...`): the model bound to the `grader` role, or,
only when asked for, the model under test."""
SystemMessagePolicy = Literal["keep", "merge", "drop"]
NegativeEndIndexPolicy = Literal["official", "skip", "error"]
SampleOrder = Literal["interleaved", "grouped", "file", "random"]
Normalization = Literal["tokens", "chars", "sum"]
Retriever = Literal["dense", "bm25"]
ToolSearch = Literal["bm25", "dense", "memory"]
"""What `history=tools` searches with (`-T search=...`): a retriever, or a memory system."""
