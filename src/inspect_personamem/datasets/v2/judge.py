"""The PersonaMem-v2 authors' open-ended judge, reproduced exactly (`judge=preference`).

The two prompts are the authors' measuring instrument, copied character for character
from bowen-upenn/PersonaMem-v2, `inference_utils.py` (`JUDGE_PROMPT_NARROW_POSITIVE`,
`JUDGE_PROMPT_NARROW_NEGATIVE`, the version of commit
d29d91d016add354e459dfeb0d24af08bc402e2a; data and code CC-BY-4.0 / the authors'). Their
sha256 after reading (`POSITIVE_SHA256`, `NEGATIVE_SHA256`) equal those that two
independent third-party copies pin, and a test holds them.

Which prompt: the negative one where the preference begins with "do not" (compared
lower-cased, not stripped, as the authors do), else the positive one. The judge sees
the query's content (without the sentence appended for the model under test), the
`preference` label and the reply; not the history, not the candidates. Its score is
read by `judge_score`, our code following the authors' rule.
"""

from __future__ import annotations

import re
from typing import Final

JUDGE_PROMPT_NARROW_POSITIVE: Final = """You are evaluating an AI assistant's personalization capabilities in open-ended conversations.

User's query:
{user_query}

Ground truth user preference: {preference}

Model's response to evaluate:
{model_response}

Task: Evaluate how well the model personalizes its response according to the user's ground-truth preference. We expect the model to demonstrate awareness of this preference and provide a response that is specifically aligned with or relevant to it, rather than giving a generic answer that could apply to anyone.

A well-personalized response should:
- Acknowledge or incorporate the specific preference mentioned
- Tailor recommendations, advice, or information to align with this preference
- Show that the model remembers and respects the user's stated preference

A poorly personalized response:
- Ignores the preference entirely and gives generic advice
- Explicitly states it doesn't remember or track preferences
- Provides suggestions that contradict the stated preference

Give a score from 0.0 (completely irrelevant to or contradicts the preference) to 1.0 (explicitly and thoughtfully personalized to the preference).

Provide your reasoning first, then give your final score as \\boxed{{score}} where score is a number between 0.0 and 1.0.
Your response:"""

JUDGE_PROMPT_NARROW_NEGATIVE: Final = """You are evaluating an AI assistant's personalization capabilities in open-ended conversations.

User's query:
{user_query}

Ground truth user preference: {preference}

Model's response to evaluate:
{model_response}

In this case, the user's ground-truth preference is a "do not personalize" or "avoid" instruction about a certain topic or attribute. The user does not want the assistant to tailor its response based on that specific preference, and instead expects a more general or neutral answer that does not rely on or mention that preference.

Task: Evaluate how well the model respects this preference. The model should avoid using or referencing the sensitive preference in a way that personalizes the response, while still providing a helpful and relevant answer.

Give a score from 0.0 (clearly personalizes using the forbidden preference or ignores the instruction) to 1.0 (fully respects the instruction to not personalize while remaining helpful).

Provide your reasoning first, then give your final score as \\boxed{{score}} where score is a number between 0.0 and 1.0.
Your response:"""

POSITIVE_SHA256: Final = "f462671eceeb4ef07610b3e13afc8312c6622def032539062951b584375e87b5"
NEGATIVE_SHA256: Final = "1f0d8e0276fd4059e2364fb1da57ce89a12550629933901f96aaa84493427a0f"

_NUMBER = r"([0-9]*\.?[0-9]+)"
_BOXED: Final = (
    re.compile(r"\\boxed\{" + _NUMBER + r"\}"),
    re.compile(r"\$\\boxed\{" + _NUMBER + r"\}\$"),
    re.compile(r"\\boxed\s*\{" + _NUMBER + r"\}"),
)
"""A boxed number: the first that matches gives the score, clamped to [0, 1]."""
_FALLBACK: Final = (
    re.compile(r"score[:\s]+" + _NUMBER, re.IGNORECASE),
    re.compile(r"rating[:\s]+" + _NUMBER, re.IGNORECASE),
    re.compile(r"([0-9]*\.[0-9]+)\s*/\s*1\.?0?", re.IGNORECASE),
)
"""Else `score: x`, `rating: x` or `x / 1`, each kept only when within [0, 1]."""


def judge_prompt(query: str, preference: str, reply: str) -> str:
    """The authors' prompt for one reply: negative where `preference` begins with "do not"."""
    negative = preference.lower().startswith("do not")
    template = JUDGE_PROMPT_NARROW_NEGATIVE if negative else JUDGE_PROMPT_NARROW_POSITIVE
    return template.format(user_query=query, preference=preference, model_response=reply)


def judge_score(answer: str) -> tuple[float, bool]:
    """The judge's score as the authors read it, and whether one was found: the first
    pattern that matches, in order (an empty or unreadable answer scores 0.0, as theirs
    does; the flag lets a report count those apart)."""
    if not answer:
        return 0.0, False
    for pattern in _BOXED:
        found = pattern.search(answer)
        if found:
            return max(0.0, min(1.0, float(found.group(1)))), True
    for pattern in _FALLBACK:
        found = pattern.search(answer)
        if found and 0.0 <= float(found.group(1)) <= 1.0:
            return float(found.group(1)), True
    return 0.0, False
