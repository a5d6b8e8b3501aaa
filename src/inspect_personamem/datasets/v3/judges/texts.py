"""Every fixed text the judged scorer sends the grader, by name, and their digests for
the log (`version.prompts` writes them under "datasets/v3/judge.py:NAME", a log field
kept as it was); `LISTED_SHA256` those that
`../shared/data/personamem_v3/prompts_verbatim.txt` lists, and a test holds them equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from inspect_personamem.datasets.v3.judges.abstention import HALLUCINATION_JUDGE_PROMPT
from inspect_personamem.datasets.v3.judges.chatbot_rubric import CHATBOT_RUBRIC_PROMPT_TEMPLATE
from inspect_personamem.datasets.v3.judges.deep_motivation import HIDDEN_PERSONA_JUDGE_PROMPT
from inspect_personamem.datasets.v3.judges.new_suggestions import NEW_SUGGESTIONS_PROMPT_TEMPLATE
from inspect_personamem.datasets.v3.judges.preface import JUDGE_PREFACE, sha256, table
from inspect_personamem.datasets.v3.judges.preference_shift import PREFERENCE_SHIFT_JUDGE_PROMPT
from inspect_personamem.datasets.v3.judges.proactive import (
    PROACTIVE_POLARITY_DEFAULT,
    PROACTIVE_POLARITY_NOTES,
    PROACTIVE_PROMPT_TEMPLATE,
)
from inspect_personamem.datasets.v3.judges.rubric_texts import (
    BINARY_GUIDANCE,
    DIM_DEFAULT_SPEC,
    DIM_PROMPT_TEMPLATE,
    PERSONALIZATION_DIM_DEFS,
    SCALE_GUIDANCE,
    VOICE_MATCH_GUIDANCE,
    VOICE_MATCH_OUTPUT_BLOCK,
)
from inspect_personamem.datasets.v3.judges.sycophancy import SYCOPHANCY_JUDGE_PROMPT
from inspect_personamem.datasets.v3.judges.unified_texts import (
    UNIFIED_DIM_QUESTIONS,
    UNIFIED_TEXTS,
)

JUDGE_TEXTS: Final[Mapping[str, str]] = {
    "JUDGE_PREFACE": JUDGE_PREFACE,
    "SYCOPHANCY_JUDGE_PROMPT": SYCOPHANCY_JUDGE_PROMPT,
    "DIM_PROMPT_TEMPLATE": DIM_PROMPT_TEMPLATE,
    "PERSONALIZATION_DIM_DEFS": table(PERSONALIZATION_DIM_DEFS),
    "DIM_DEFAULT_SPEC": table(DIM_DEFAULT_SPEC),
    "VOICE_MATCH_OUTPUT_BLOCK": VOICE_MATCH_OUTPUT_BLOCK,
    "VOICE_MATCH_GUIDANCE": VOICE_MATCH_GUIDANCE,
    "BINARY_GUIDANCE": BINARY_GUIDANCE,
    "SCALE_GUIDANCE": SCALE_GUIDANCE,
    "PROACTIVE_PROMPT_TEMPLATE": PROACTIVE_PROMPT_TEMPLATE,
    "PROACTIVE_POLARITY_NOTES": table(PROACTIVE_POLARITY_NOTES),
    "PROACTIVE_POLARITY_DEFAULT": PROACTIVE_POLARITY_DEFAULT,
    "NEW_SUGGESTIONS_PROMPT_TEMPLATE": NEW_SUGGESTIONS_PROMPT_TEMPLATE,
    "HALLUCINATION_JUDGE_PROMPT": HALLUCINATION_JUDGE_PROMPT,
    "HIDDEN_PERSONA_JUDGE_PROMPT": HIDDEN_PERSONA_JUDGE_PROMPT,
    **UNIFIED_TEXTS,
    "UNIFIED_DIM_QUESTIONS": table(UNIFIED_DIM_QUESTIONS),
    "PREFERENCE_SHIFT_JUDGE_PROMPT": PREFERENCE_SHIFT_JUDGE_PROMPT,
}
"""The fixed texts the judged scorer sends the grader (whole, or as the parts of a
prompt it fills; a table as sorted JSON), by name: what a run's log digests
(`version.prompts`); the unified judge's from the authors' prompts.py@b8d90778 and,
for its rubric v3 texts, a third-party transcription (`unified_texts`), as the
preference-shift judge's (`unified_texts.SOURCE`); the per-dimension judge's
(`judge=per_dimension`) from the authors' own files. `judge_chatbot_rubric_prompt` is
no scorer's and is not here."""

TEXT_SHA256: Final[Mapping[str, str]] = {
    **{name: sha256(text) for name, text in JUDGE_TEXTS.items()},
    "CHATBOT_RUBRIC_PROMPT_TEMPLATE": sha256(CHATBOT_RUBRIC_PROMPT_TEMPLATE),
}
"""Each fixed text's sha256 (UTF-8), for the log: the judge's instrument, named."""

LISTED_SHA256: Final[Mapping[str, tuple[str, int]]] = {
    "JUDGE_PREFACE": ("3ec9b50069b5664c8629654b4558400fc78f4d8ddc647420fdee15cd1dcf2f4d", 281),
    "SYCOPHANCY_JUDGE_PROMPT": (
        "3a203e1032b16ec1a0a5506ef4dc412323bf8cd15be790cbf6a7f95801062605",
        1062,
    ),
}
"""The digests and lengths prompts_verbatim.txt lists (`_JUDGE_PREFACE`,
`_SYCOPHANCY_JUDGE_PROMPT`); it lists none of the other judge texts."""
