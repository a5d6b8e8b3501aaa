"""Make the example report shown in the README's "Reports" section, offline.

Nothing here measures a real model: the data are synthetic PersonaMem-shaped files
and the "models" are `personamem/oracle` (this package's offline model) answering
correctly with a chosen probability (higher with the history, lower as sessions
elapse). Every figure says so in its title.

    PYTHONPATH=src python scripts/make_report_example.py OUT_DIR [--docs docs/images]
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from inspect_ai import eval as inspect_eval

from inspect_personamem.datasets.v1.generator import generate_split
from inspect_personamem.report import build_report

TITLE = "EXAMPLE ONLY: personamem/oracle on synthetic data, not real results"
MODELS = {  # name -> (accuracy with history, without history) at one session elapsed
    "personamem/model-a": (0.80, 0.45),
    "personamem/model-b": (0.60, 0.40),
}
DOC_FIGURES = (
    "categories.png",
    "methods_1_personamem-model-a-128k.png",
    "cost.png",
    "sessions.png",
    "published_1_personamem-model-a-full-history-not-released-data.png",
)
RAG: dict[str, object] = {"history": "rag", "retriever": "bm25", "top_k": 5}
"""model-a is also run with BM25 retrieval (no model needed), a method beside the two."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--docs", type=Path, help="copy the README's figures here")
    args = parser.parse_args()
    data, logs = args.out / "data", args.out / "logs"
    questions, _ = generate_split(
        data, "128k", contexts=8, min_messages=80, max_messages=120, questions=240, seed=1
    )
    for name, (with_history, without_history) in MODELS.items():
        settings: list[dict[str, object]] = [{"history": "full"}, {"history": "none"}, RAG]
        for setting in settings if name.endswith("a") else settings[:1]:
            inspect_eval(
                "inspect_personamem/personamem_128k",
                task_args={"data_dir": str(data), **setting},
                model=name,
                model_args={
                    "questions": str(questions),
                    "accuracy": with_history,
                    "accuracy_without_history": without_history,
                    "decay": 0.04,
                },
                log_dir=str(logs),
                display="none",
            )
    report = build_report(
        [logs],
        args.out / "report",
        name_overrides={"personamem/model-a": "GPT-4o"},
        title=TITLE,
        include_unreleased=True,  # the synthetic split, labelled `not released data`
    )
    print("\n".join(report.notes))
    print(report.index)
    if args.docs:
        args.docs.mkdir(parents=True, exist_ok=True)
        for name in DOC_FIGURES:
            shutil.copy(args.out / "report" / "figures" / name, args.docs / f"report_{name}")


if __name__ == "__main__":
    main()
