"""The numbers published about PersonaMem-v3 (`v3_published`): the paper's Figure 3,
eight model x setting configurations, each with its Overall (the micro mean, the
authors' headline) and three of its measures, on the authors' 0-100 (here over 100, as
a run's accuracy). A report sets every v3 run beside them (`declared.Published`).

Each value's source is stated (`source`). All 32 come from a third-party transcription
of Figure 3 (arXiv 2608.21381v1; the excerpt
`../shared/data/personamem_v3/thirdparty_figure3_transcription.txt`): no authors' file
holds the figure's data (results/_scripts/render_final_tables.py@8e2a111f patches the
Overall, chatbot and ranking rows of an HTML table that is not in the repository, and
PersonaMem_v3.pdf@8e2a111f is binary). The authors' own text,
results/RESULTS_SECTION.md (the same sentences at 32a47dd3 and 8e2a111f), states eleven
of them:

- eight as the figure has them (`STATED`): Overall 53.7 (Opus-4.8), 53.4 (GPT-5.5 long
  context), 53.2 (Codex High); proactive feed ranking 35.3 (Codex High); tracking
  preference changes 73.1 (GPT-5.5 long context), 56.9 (Mem0), 65.7 (Opus-4.8), 64.6
  (Sonnet-4.6);
- three otherwise (`TEXT_DIFFERS`): tracking preference changes 79.9 for GPT-5.5 textual
  memory (figure 79.7), 66.0 for Codex High (67.9), 71.1 for Gemini-3.5-Flash textual
  memory (67.4).

Settled as far as the files allow: the table (Figure 3) holds the transcribed values,
the only reading of it there is; the paper's prose states the three others, so the
paper disagrees with itself there (its text says "the matched rows test short-term
preference expirations", which may be another set of rows than the figure's column).
No readable file decides which is right, so the figure's values stay and each of the
three carries the text's value in its source.

Each is over the 10 matched personas {1, 2, 3, 5, 6, 8, 9, 10, 13, 14}
(results/_scripts/patch_matched10_taskrows.py@32a47dd3 `MATCHED`; rebuild_newmem.py
@32a47dd3 names the same ten), one run each, through the authors' harness with every
judged task type judged by gpt-5.5.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from inspect_personamem.datasets.declared import PublishedNumber

FIGURE: Final = "Jiang et al. 2026, PersonaMem-v3 (arXiv 2608.21381v1), Figure 3"
TRANSCRIBED: Final = f"{FIGURE}, as transcribed by a third party"
TEXT: Final = "results/RESULTS_SECTION.md@32a47dd3 and @8e2a111f"
CONFIRMED: Final = f"{TRANSCRIBED}; the same value stated in {TEXT}"
MEASURES: Final = (
    "Overall (micro)",
    "tracking preference changes",
    "proactive feed ranking (NDCG@5)",
    "generic chatbot restraint",
)
"""Figure 3's columns, in its order: the Overall is what a run's `accuracy` is."""
MATCHED_PERSONAS: Final = (1, 2, 3, 5, 6, 8, 9, 10, 13, 14)
"""results/_scripts/patch_matched10_taskrows.py@32a47dd3 `MATCHED`."""
COMMON: Final = (
    "the authors' harness, 10 matched personas (ids "
    + ", ".join(map(str, MATCHED_PERSONAS))
    + "), 1 run; judged task types judged by gpt-5.5"
)
HARNESS: Final = {
    "long context": "one call with their long-context text (about 416k tokens a query)",
    "textual memory": "their Markdown memory, written by the model a day at a time",
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
STATED: Final = frozenset(
    {
        ("Opus-4.8", "Claude Code High", MEASURES[0]),
        ("GPT-5.5", "long context", MEASURES[0]),
        ("GPT-5.5", "Codex High", MEASURES[0]),
        ("GPT-5.5", "Codex High", MEASURES[2]),
        ("GPT-5.5", "long context", MEASURES[1]),
        ("GPT-5.5", "Mem0", MEASURES[1]),
        ("Opus-4.8", "Claude Code High", MEASURES[1]),
        ("Sonnet-4.6", "Claude Code High", MEASURES[1]),
    }
)
"""The figure's values the authors' text states as they are."""
TEXT_DIFFERS: Final = {
    ("GPT-5.5", "textual memory", MEASURES[1]): 79.9,
    ("GPT-5.5", "Codex High", MEASURES[1]): 66.0,
    ("Gemini-3.5-Flash", "textual memory", MEASURES[1]): 71.1,
}
"""The figure's values the authors' text states otherwise, with the text's value."""


def source_of(model: str, setting: str, measure: str) -> str:
    """Where one value comes from, and what the authors' text says of it."""
    key = (model, setting, measure)
    if key in STATED:
        return CONFIRMED
    if key in TEXT_DIFFERS:
        return f"{TRANSCRIBED}; {TEXT} states {TEXT_DIFFERS[key]} instead"
    return TRANSCRIBED


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
            source=source_of(model, setting, measure),
            deviations=f"{COMMON}; {HARNESS[setting]}",
        )
        for model, setting, values in _ROWS
        for measure, value in zip(MEASURES, values, strict=True)
    )
