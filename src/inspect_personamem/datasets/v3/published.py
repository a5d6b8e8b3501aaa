"""The numbers published about PersonaMem-v3 (`v3_published`): the paper's Figure 3,
eight model x setting configurations, each with its Overall (the micro mean, the
authors' headline) and three of its measures, on the authors' 0-100 (here over 100, as
a run's accuracy). A report sets every v3 run beside them (`declared.Published`).

Source: a third-party transcription of Figure 3 (arXiv 2608.21381v1; the excerpt
`../shared/data/personamem_v3/thirdparty_figure3_transcription.txt`), not the authors'
files; the repository's results/RESULTS_SECTION.md@32a47dd3 states four of them in its
text (Overall 53.7, 53.4 and 53.2; feed ranking 35.3), the rest are unconfirmed there.
Each is over 10 matched personas (not named), one run each, through the authors' harness
with every judged task type judged by gpt-5.5.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from inspect_personamem.datasets.declared import PublishedNumber

FIGURE: Final = "Jiang et al. 2026, PersonaMem-v3 (arXiv 2608.21381v1), Figure 3"
TRANSCRIBED: Final = f"{FIGURE}, as transcribed by a third party"
CONFIRMED: Final = f"{TRANSCRIBED}; stated in results/RESULTS_SECTION.md@32a47dd3"
MEASURES: Final = (
    "Overall (micro)",
    "tracking preference changes",
    "proactive feed ranking (NDCG@5)",
    "generic chatbot restraint",
)
"""Figure 3's columns, in its order: the Overall is what a run's `accuracy` is."""
COMMON: Final = (
    "the authors' harness, 10 matched personas (not named), 1 run; judged task types "
    "judged by gpt-5.5"
)
HARNESS: Final = {
    "long context": "one call with their long-context text (about 416k tokens a query)",
    "textual memory": "their Markdown memory, written by the model over the stream",
    "Mem0": "Mem0 on Azure (gpt-5.5, text-embedding-3-large, top 30 before the query)",
    "Codex High": "Codex CLI (gpt-5.5) in a read-only snapshot of the files",
    "Claude Code High": "Claude Code in a snapshot of the files (Read, Grep, Glob, Bash)",
}
"""What each setting is in the authors' harness (PERSONAMEM_V3.md section 4)."""
_ROWS: Final = (
    ("GPT-5.5", "long context", (53.4, 73.1, 33.4, 85.2)),
    ("GPT-5.5", "textual memory", (49.4, 79.7, 29.8, 77.9)),
    ("GPT-5.5", "Mem0", (48.8, 56.9, 25.8, 74.9)),
    ("GPT-5.5", "Codex High", (53.2, 67.9, 35.3, 85.3)),
    ("Gemini-3.5-Flash", "long context", (47.7, 63.7, 34.3, 75.1)),
    ("Gemini-3.5-Flash", "textual memory", (51.5, 67.4, 32.2, 78.0)),
    ("Opus-4.8", "Claude Code High", (53.7, 65.7, 29.1, 87.3)),
    ("Sonnet-4.6", "Claude Code High", (50.9, 64.6, 25.2, 81.9)),
)
"""Model, setting and Figure 3's four numbers on 0-100 (the transcription's rows)."""
_STATED: Final = frozenset(
    {
        ("Opus-4.8", "Claude Code High", MEASURES[0]),
        ("GPT-5.5", "long context", MEASURES[0]),
        ("GPT-5.5", "Codex High", MEASURES[0]),
        ("GPT-5.5", "Codex High", MEASURES[2]),
    }
)
"""The numbers RESULTS_SECTION.md@32a47dd3 states in its text."""


@cache
def v3_published() -> tuple[PublishedNumber, ...]:
    """The published numbers, one per configuration and measure, each Overall first."""
    return tuple(
        PublishedNumber(
            kind="paper",
            system=f"{setting}: {measure}",
            model=model,
            low=value / 100,
            high=value / 100,
            source=CONFIRMED if (model, setting, measure) in _STATED else TRANSCRIBED,
            deviations=f"{COMMON}; {HARNESS[setting]}",
        )
        for model, setting, values in _ROWS
        for measure, value in zip(MEASURES, values, strict=True)
    )
