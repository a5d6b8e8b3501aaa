"""What each dataset version sends the model, pinned byte for byte.

A digest of every message every sample sends (role and text, samples by id) and of the
score each reply got, for PersonaMem (v1) and PersonaMem-v2, chosen and open answers,
on small generated data. Taken before the dataset versions became registry entries and
held after: a refactor that changes one byte of a prompt, or one score, fails here.
Where a change is meant, the digest changes with a task version bump and a changelog
entry. A change of the generated data changes the digests too, with no task change:
the v1 ones were taken again when the generator came to place each question's
evidence message in its history (and to draw its rows to fit), and again when it came
to place it `d - 1` sessions back, at its token distance, as the real data do (task
version 2.3.0); the open ones when the grader came to be tried on replies built from the
candidates (more grader prompts; the real replies' prompts and scores unchanged).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage
from support.helpers import mock_model, run_task, version_prompts

RENDERED: dict[str, str] = {
    "v1 choice": "c0b08cbd8f519a001c3f22e70e44ba1d4af6b70a335a55f3edb4205d546082bd",
    "v1 open": "86ebba020a37b8b22503b5b352546309e08402275c21198e71e9b6b2d495c5af",
    "v1 none": "49404adf8a3a72f15e5e4eb894bba7725962758914d01f2ee5e013a4ce821872",
    "v2 choice": "673b0e6be1e1d9ba831f56e1064768e1c528256e0d3d4eaf74c8f61e055d7541",
    "v2 open": "2b3bf10028f774096ed147c1a0363b765958e551484941ed06a64c1277096182",
    "v2 preference": "9c80e08f6b6c9577943a59f3b3b6cc7a15294b391eecc767a71b3aa3e090052e",
}
"""Case -> sha256 of the messages sent (to the model and to the grader) and the scores
given."""

CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "v1 choice": ("personamem_32k", {"shuffle": 3}),
    "v1 open": ("personamem_32k", {"answer": "open"}),
    "v1 none": ("personamem_32k", {"history": "none", "system_messages": "merge"}),
    "v2 choice": ("personamem_v2_32k", {}),
    "v2 open": ("personamem_v2_32k", {"answer": "open"}),
    "v2 preference": ("personamem_v2_32k", {"answer": "open", "judge": "preference"}),
}


def _text(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    return [(message.role, message.text) for message in messages]


def _digest(case: str, data: Path, log_dir: Path) -> tuple[str, str]:
    task, task_args = CASES[case]
    sent: list[list[tuple[str, str]]] = []
    graded: list[list[tuple[str, str]]] = []

    def reply(messages: list[ChatMessage]) -> str:
        sent.append(_text(messages))
        return "My answer is (b). Sure: I'd suggest starting small."

    def grade(messages: list[ChatMessage]) -> str:
        graded.append(_text(messages))
        return "Candidate 2 <final>0.5</final>"

    log = run_task(
        f"inspect_personamem/{task}",
        mock_model(reply),
        log_dir,
        {"data_dir": str(data), **task_args},
        model_roles={"grader": mock_model(grade, name="mockllm/grader")},
    )
    assert log.status == "success", log.error
    assert log.samples
    rendered = [
        {
            "id": str(sample.id),
            "messages": _text(sample.messages),
            "scores": {name: score.value for name, score in (sample.scores or {}).items()},
        }
        for sample in sorted(log.samples, key=lambda sample: str(sample.id))
    ]
    payload = json.dumps(
        {"sent": sorted(sent), "graded": sorted(graded), "samples": rendered}, sort_keys=True
    )
    every_text = "\n".join(text for messages in sent + graded for _, text in messages)
    return hashlib.sha256(payload.encode()).hexdigest(), every_text


@pytest.mark.parametrize(  # each an end-to-end run: v1's choice answer in the fast suite
    "case", [case if case == "v1 choice" else pytest.param(case, marks=pytest.mark.slow)
             for case in CASES]
)  # fmt: skip
def test_what_the_model_is_sent_is_pinned(
    case: str, small_split: Path, small_v2: Path, tmp_path: Path
) -> None:
    data = small_v2 if case.startswith("v2") else small_split
    digest, sent = _digest(case, data, tmp_path)
    assert digest == RENDERED[case]
    # the fixed texts the version says such a run sends (a results card hashes them)
    # are in what it sent, each up to its first field where it is a template
    task, task_args = CASES[case]
    listed = version_prompts(case.split()[0], **task_args)
    assert listed and all(text.split("{")[0] in sent for text in listed.values()), listed
