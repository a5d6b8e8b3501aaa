"""The grader's trials: replies built from a question's candidates, without a model,
whose right verdict is known.

A question's candidates are split into sentences. The **shared** part is the sentences
every candidate has (in the first candidate's order); a candidate's **distinctive**
part is its other sentences, in its order. From these, for the correct candidate and
the **foil** (the longest wrong candidate, the first of equals):

- `identity_correct`, `identity_wrong`: a candidate itself as the reply (the correct
  one, or a wrong one); right: that candidate. Not for a candidate whose text another
  candidate has too (on 17 questions of the real 32k file a wrong option repeats the
  correct one): no verdict could tell the two apart.
- `generic`: the shared part alone, what every candidate says; right: none. Only where
  the candidates share a sentence and each has one of its own.
- `mixed`: the correct candidate's distinctive part, then the foil's; right: none (it
  shares the assumptions of two candidates equally, as the grader prompt's rule for
  none says).
- `length`: the correct candidate itself as the reply, but shown shortened to its
  distinctive part, while the foil is shown lengthened with the shared part; right:
  the correct one. Only where the candidates share a sentence and the lengthened foil
  is longer than the shortened correct candidate: the correct candidate is then not
  the longest, as it is on about half of the real questions.
- `reorder`: the run's own reply graded again under the reverse order; right: the
  verdict it got under the first order (built by the scorer, which knows that verdict).

Each built trial is shown under the question's two orders of the candidates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

TrialKind = Literal["identity_correct", "identity_wrong", "generic", "mixed", "length", "reorder"]
"""What a trial shows the grader (see the module docstring)."""
TRIAL_KINDS: Final[tuple[TrialKind, ...]] = (
    "identity_correct",
    "identity_wrong",
    "generic",
    "mixed",
    "length",
    "reorder",
)

RIGHT_VERDICTS: Final[dict[TrialKind, str]] = {
    "identity_correct": "the correct candidate: the reply is it",
    "identity_wrong": "the wrong candidate the reply is",
    "generic": "none: the reply is what every candidate says",
    "mixed": "none: the reply is two candidates' own parts",
    "length": "the correct candidate, shown shorter than a wrong one",
    "reorder": "the reply's own verdict, under the reverse order",
}
"""What the right verdict of each kind of trial is, in a few words (as reports say it)."""

TRIAL_COUNTS: Final = "grader_trials"
"""The score metadata of a calibrated question counting its trials per kind:
`{kind: {"trials": n, "right": n, "named_correct": n}}` (`right`: the verdict was the
right one; `named_correct`: it named the question's correct candidate)."""
SENSITIVITY_KINDS: Final[tuple[TrialKind, ...]] = ("identity_correct", "length")
"""The kinds whose reply carries the correct candidate's assumptions: how often the
grader names the correct candidate there is its sensitivity."""
FALSE_POSITIVE_KINDS: Final[tuple[TrialKind, ...]] = ("identity_wrong", "generic", "mixed")
"""The kinds whose reply is not right (a wrong candidate's, no candidate's, two
candidates'): how often the grader names the correct candidate there is its
false-positive rate."""

_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019)\]]))\s+|\n+")
"""A sentence ends at `.`, `!` or `?` (and a closing quote or bracket) before white
space, or at a line break."""


def sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, in order."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


@dataclass(frozen=True)
class Parts:
    """A question's candidates split into what all of them say and what each says alone."""

    shared: tuple[str, ...]
    """The sentences every candidate has, in the first candidate's order."""
    distinctive: tuple[tuple[str, ...], ...]
    """Each candidate's other sentences, in its order."""


def candidate_parts(candidates: Sequence[str]) -> Parts:
    """The shared and distinctive parts of `candidates` (sentences compared exactly)."""
    split = [sentences(text) for text in candidates]
    shared = tuple(s for s in split[0] if all(s in other for other in split[1:]))
    return Parts(shared, tuple(tuple(s for s in own if s not in shared) for own in split))


@dataclass(frozen=True)
class Trial:
    """A reply shown to the grader beside candidates, and the verdict that is right."""

    kind: TrialKind
    reply: str
    candidates: tuple[str, ...]
    """The candidates, indexed as the sample's options (some changed by `length`)."""
    order: tuple[int, ...]
    """The order they are shown in (`order[i]`: the option numbered i + 1)."""
    expected: int | None
    """The option the right verdict names; None: none of them (a `reorder` trial's is
    the verdict the reply got first, known once that is graded)."""


def built_trials(
    candidates: Sequence[str], correct: int, orders: Sequence[tuple[int, ...]]
) -> list[Trial]:
    """A question's identity, generic, mixed and length trials, each under `orders`."""
    texts = tuple(candidates)
    parts = candidate_parts(texts)
    shared = " ".join(parts.shared)
    foil = max((i for i in range(len(texts)) if i != correct), key=lambda i: len(texts[i]))
    own, foil_own = (" ".join(parts.distinctive[i]) for i in (correct, foil))
    stripped = [text.strip() for text in texts]
    shown: list[tuple[TrialKind, str, tuple[str, ...], int | None]] = [
        ("identity_correct" if i == correct else "identity_wrong", text, texts, i)
        for i, text in enumerate(texts)
        if stripped.count(stripped[i]) == 1
    ]
    if shared and all(parts.distinctive):
        shown.append(("generic", shared, texts, None))
    if own and foil_own and own != foil_own:
        shown.append(("mixed", f"{own} {foil_own}", texts, None))
    lengthened = f"{texts[foil]} {shared}"
    if shared and own and len(lengthened) > len(own):
        changed = tuple(
            own if i == correct else lengthened if i == foil else text
            for i, text in enumerate(texts)
        )
        shown.append(("length", texts[correct], changed, correct))
    return [
        Trial(kind, reply, shown_candidates, order, expected)
        for kind, reply, shown_candidates, expected in shown
        for order in orders
    ]
