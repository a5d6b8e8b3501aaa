"""What an offline model reads of a prompt, in terms every dataset version answers in:
the oracle's questions it knows the answers of (`Known`, `Asked`, `KnownQuestions`) and
the floor's options it picks among (`ChoicePrompt`). Each version reads its own prompts
and question files into these (what its entry declares for them, `DatasetVersion.offline`); the
offline models (`offline/`) read them. They sit in this shared layer, below both, so
that a version's readers need not import the tools that use them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.model import ChatMessage


@dataclass(frozen=True)
class Known:
    """What the oracle knows of one question: its options' texts, the correct one's
    index, how many steps of `decay` its chance loses, and, where the version has one,
    the end index of its history (which tells apart a text asked over several)."""

    options: tuple[str, ...]
    correct: int
    decay_steps: int
    end_index: int | None = None


@dataclass(frozen=True)
class Asked:
    """A question found at the end of a prompt: what the oracle knows of it, how many
    of the last messages ask it (those before them are the history), and the reply
    that answers each option (its letter in the answer form, or its text)."""

    known: Known
    messages: int
    replies: tuple[str, ...]
    question: str | None = None
    """The question's text as the version reads it, where the prompt wraps it (an agent
    setting's framing before it); None: the text of the messages asking it. The oracle's
    draw reads it, so that a question has the same chance however it is framed."""


class KnownQuestions(ABC):
    """A question file the oracle answers from."""

    def __init__(self, source: Path) -> None:
        self.source = source

    @abstractmethod
    def find(self, input: Sequence[ChatMessage]) -> Asked:
        """The question the prompt `input` asks; raise if it asks none of the file's."""

    def find_after(self, prompt: Sequence[ChatMessage], exchange: Sequence[ChatMessage]) -> Asked:
        """The question `prompt` asks where the model has called tools since (`exchange`:
        its calls and their results), which may tell apart questions sharing a prompt's
        words; by default as `find` reads the prompt alone."""
        return self.find(prompt)


@dataclass(frozen=True)
class ChoicePrompt:
    """A prompt that asks to choose among options, as the floor reads it: the question,
    the options' texts in the order shown, how many of the last messages ask it (those
    before them are the history), and the reply that names each option."""

    question: str
    options: tuple[str, ...]
    messages: int
    replies: tuple[str, ...]
