"""Make the example report shown in the README's "Reports" section, offline, from mockllm runs.

Nothing here measures a real model: the data are synthetic PersonaMem-shaped files
and the "models" are mockllm oracles that answer correctly with a chosen
probability (higher with the history, lower as sessions elapse). Every figure says
so in its title.

    PYTHONPATH=src python scripts/make_report_example.py OUT_DIR [--docs docs/images]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from inspect_personamem.prompt import final_user_message
from inspect_personamem.records import read_questions
from inspect_personamem.report import build_report
from inspect_personamem.synthetic import generate_split

TITLE = "EXAMPLE ONLY: mockllm oracles on synthetic data, not real results"
MODELS = {  # name -> (accuracy with history, without history) at one session elapsed
    "mockllm/model-a": (0.80, 0.45),
    "mockllm/model-b": (0.60, 0.40),
}
DOC_FIGURES = ("categories.png", "sessions.png", "published_1_mockllm-model-a-full-history.png")


def oracle(name: str, key: dict[str, tuple[str, int]], base: float) -> Model:
    """Right with probability `base` minus 4 points per session elapsed, else wrong."""

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        text = messages[-1].text
        correct, sessions = key[text]
        draw = hashlib.sha256(f"{name}|{len(messages)}|{text}".encode()).digest()
        right = draw[0] / 256 < base - 0.04 * (sessions - 1)
        letter = correct if right else "abcd"[("abcd".index(correct) + 1 + draw[1] % 3) % 4]
        result = ModelOutput.from_content(name, f"<final_answer>({letter})")
        result.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return result

    return get_model(name, custom_outputs=output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--docs", type=Path, help="copy the README's figures here")
    args = parser.parse_args()
    data, logs = args.out / "data", args.out / "logs"
    questions, _ = generate_split(
        data, "128k", contexts=8, min_messages=20, max_messages=40, questions=240, seed=1
    )
    key = {
        final_user_message(r.question, str(r.columns["all_options"])): (
            r.correct_letter,
            int(r.columns["distance_to_ref_in_blocks"]),
        )
        for r in read_questions(questions, "128k")
    }
    for name, (with_history, without_history) in MODELS.items():
        for history, base in (("full", with_history), ("none", without_history)):
            if name.endswith("b") and history == "none":
                continue
            inspect_eval(
                "inspect_personamem/personamem_128k",
                task_args={"data_dir": str(data), "history": history},
                model=oracle(name, key, base),
                log_dir=str(logs),
                display="none",
            )
    report = build_report(
        [logs],
        args.out / "report",
        name_overrides={"mockllm/model-a": "GPT-4o"},
        title=TITLE,
    )
    print("\n".join(report.notes))
    print(report.index)
    if args.docs:
        args.docs.mkdir(parents=True, exist_ok=True)
        for name in DOC_FIGURES:
            shutil.copy(args.out / "report" / "figures" / name, args.docs / f"report_{name}")


if __name__ == "__main__":
    main()
