"""`inspect eval` with answer=logprob, the solver end to end (`answer/logprob/solver.py`):
through the hf/ provider, and through the vllm/ provider against a stand-in completions
server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import LoggerEvent
from inspect_ai.log import EvalLog

pytest.importorskip("transformers", reason="needs the local extra: pip install -e '.[local]'")
pytestmark = pytest.mark.local_model

from support.evidence import located  # noqa: E402
from support.helpers import DISPLAY  # noqa: E402
from support.logprob import LocalSetup, completions_server, make_setup  # noqa: E402
from transformers import AutoModelForCausalLM  # noqa: E402

from inspect_personamem.data.asked import AskedAt  # noqa: E402
from inspect_personamem.data.options import LETTERS  # noqa: E402


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> LocalSetup:
    return make_setup(tmp_path_factory.mktemp("logprob_eval"), questions=6)


def run(setup: LocalSetup, log_dir: Path, model: str, **kwargs: Any) -> EvalLog:
    task_args = {"data_dir": str(setup.data), "answer": "logprob", **kwargs.pop("task_args", {})}
    [log] = inspect_eval(
        "inspect_personamem/personamem_32k",
        task_args=task_args,
        model=model,
        log_dir=str(log_dir),
        display=DISPLAY,
        **kwargs,
    )
    assert log.status == "success", log.error
    return log


def check_samples(log: EvalLog) -> None:
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        evidence = sample.metadata["logprob"]
        scores = [option["score"] for option in evidence["options"]]
        best = LETTERS[scores.index(max(scores))]
        assert evidence["chosen"] == best
        assert sample.output.completion == f"<final_answer>({best})"
        score = sample.scores["personamem_scorer"]  # type: ignore[index]
        assert score.value == ("C" if f"({best})" == sample.target else "I")
        for option in evidence["options"]:
            assert option["tokens"] > 0 and option["logprob"] < 0
            assert option["score"] == pytest.approx(option["logprob"] / option["tokens"])
        # the options were never shown: the question alone, then the chosen reply
        assert [m.role for m in sample.messages] == ["user", "assistant"]
        assert sample.messages[0].text == AskedAt.of(sample.metadata).message


def test_hf_eval_end_to_end(setup: LocalSetup, tmp_path: Path) -> None:
    log = run(
        setup,
        tmp_path,
        "hf/local",
        model_args={"model_path": str(setup.model), "device": "cpu"},
        task_args={"context_window": 200, "option_batch_size": 2},
    )
    assert log.eval.task_args["answer"] == "logprob"
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert {"accuracy", "stderr", "category_macro"} <= set(metrics)
    assert any(name.startswith("category_") and name != "category_macro" for name in metrics)
    check_samples(log)
    evidence = [s.metadata["logprob"] for s in log.samples or []]
    for e in evidence:
        longest = max(option["tokens"] for option in e["options"])
        assert e["truncation"]["prefix_tokens"] == e["prefix_tokens"]
        assert e["prefix_tokens"] + longest <= 200
    truncations = [e["truncation"] for e in evidence]
    assert any(t["dropped_messages"] > 0 and t["dropped_tokens"] > 0 for t in truncations)
    for sample in log.samples or []:  # each cut is also logged in the sample's transcript
        logged = [e.message.message for e in sample.events if isinstance(e, LoggerEvent)]
        cut = sample.metadata["logprob"]["truncation"]["dropped_messages"]
        assert any("history cut" in message for message in logged) == (cut > 0)


def test_hf_eval_reuses_the_previous_questions_cache(setup: LocalSetup, tmp_path: Path) -> None:
    model_args = {"model_path": str(setup.model), "device": "cpu"}
    log = run(setup, tmp_path, "hf/local", model_args=model_args)
    evidence = [s.metadata["logprob"] for s in log.samples or []]
    assert all(e["truncation"]["dropped_messages"] == 0 for e in evidence)
    assert sum(e["reused_tokens"] > 0 for e in evidence) >= 2  # 6 questions, 2 contexts
    for e in evidence:
        # the prefix's new tail, then the four options packed into one pass (no padding)
        options = sum(option["tokens"] for option in e["options"])
        assert e["forward_tokens"] == e["prefix_tokens"] - e["reused_tokens"] + options


def test_prefill_chunk_reaches_the_model_and_keeps_the_scores(
    setup: LocalSetup, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_personamem.answer.logprob import hf

    passes: list[int] = []  # tokens of each prefill pass
    prefill = hf.SharedPrefixLogprobs._prefill

    def counted(self: Any, prefix: tuple[int, ...], stats: Any) -> Any:
        model = self.model

        class Counting:
            def __getattr__(self, name: str) -> Any:
                return getattr(model, name)

            def __call__(self, **kwargs: Any) -> Any:
                passes.append(kwargs["input_ids"].shape[1])
                return model(**kwargs)

        self.model = Counting()
        try:
            return prefill(self, prefix, stats)
        finally:
            self.model = model

    monkeypatch.setattr(hf.SharedPrefixLogprobs, "_prefill", counted)
    model_args = {"model_path": str(setup.model), "device": "cpu"}
    whole = run(setup, tmp_path / "whole", "hf/local", model_args=model_args)
    assert len(passes) == 6 and max(passes) > 16  # one pass a question
    passes.clear()
    chunked = run(
        setup, tmp_path / "chunked", "hf/local", model_args=model_args,
        task_args={"prefill_chunk": 16},
    )  # fmt: skip
    assert max(passes) == 16 and len(passes) > 6
    for a, b in zip(whole.samples or [], chunked.samples or [], strict=True):
        x, y = a.metadata["logprob"], b.metadata["logprob"]
        assert (x["forward_tokens"], x["reused_tokens"]) == (
            y["forward_tokens"],
            y["reused_tokens"],
        )
        for u, v in zip(x["options"], y["options"], strict=True):
            assert u["logprob"] == pytest.approx(v["logprob"], abs=1e-4)


def test_vllm_provider_eval_against_stand_in(setup: LocalSetup, tmp_path: Path) -> None:
    model = AutoModelForCausalLM.from_pretrained(setup.model)
    requests: list[dict[str, Any]] = []
    name = str(setup.model)
    with completions_server(model, name, 200, requests) as base_url:
        log = run(setup, tmp_path, f"vllm/{name}", model_base_url=base_url)
    check_samples(log)
    assert len(requests) == 6  # one request (four prompts) per question
    assert all(s.metadata["logprob"]["truncation"]["window"] == 199 for s in log.samples or [])


def test_logprob_method_sends_each_contexts_questions_together(setup: LocalSetup) -> None:
    from inspect_personamem.run.tasks import TASKS

    def order(**kwargs: Any) -> list[tuple[str, int]]:
        task = TASKS["personamem_32k"](data_dir=str(setup.data), **kwargs)
        metadata = [sample.metadata or {} for sample in task.dataset]
        return [
            (str(m["shared_context_id"]), int(m["end_index_in_shared_context"])) for m in metadata
        ]

    grouped = order(answer="logprob")
    assert grouped == sorted(
        grouped, key=lambda key: ([c for c, _ in grouped].index(key[0]), key[1])
    )
    assert len({c for c, _ in grouped}) == 2
    assert order(answer="logprob", order="interleaved") == order()
    assert order() != grouped


@pytest.mark.parametrize(
    "history",
    [
        {"history": "rag", "retriever": "bm25", "top_k": 3},
        {"history": "memory", "memory": "support.memories:SpyMemory"},
        {"history": "evidence"},
        {"history": "none"},
    ],
)
def test_logprob_composes_with_every_history(
    setup: LocalSetup, tmp_path: Path, history: dict[str, Any]
) -> None:
    """What the source gives is the history the options are scored after: retrieved
    messages, a memory's facts, the evidence alone, or nothing; the options are never
    shown."""
    log = run(
        setup,
        tmp_path,
        "hf/local",
        model_args={"model_path": str(setup.model), "device": "cpu"},
        task_args={"context_window": 400, "keep_history_in_log": True, **history},
    )
    assert log.eval.metadata is not None
    assert (log.eval.metadata["history"], log.eval.metadata["answer"]) == (
        history["history"], "logprob",
    )  # fmt: skip
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        before = sample.messages[:-2]  # the history kept in the log, then question, reply
        assert sample.messages[-2].text == AskedAt.of(sample.metadata).message
        if history["history"] == "rag":
            assert 0 < len(before) <= 3 and "memory" in sample.metadata
        elif history["history"] == "memory":
            end = sample.metadata["end_index_in_shared_context"]
            assert [m.text for m in before] == [f"# User facts:\nheld {end - 1}"]
        elif history["history"] == "evidence":
            _, evidence = located("v1", setup.data)[str(sample.id)]
            assert [(m.role, m.text) for m in before] == [(m.role, m.text) for m in evidence.shown]
        else:
            assert before == []
        assert sample.metadata["logprob"]["chosen"] in LETTERS[:4]


def test_logprob_on_personamem_v2(small_v2: Path, tmp_path: Path) -> None:
    """PersonaMem-v2's options scored as the reply after the persona's whole history and
    the query: the options never shown, each scored, one chosen and scored by letter."""
    from inspect_personamem.offline.random_model import save_random_model

    corpus = [p.read_text(encoding="utf-8") for p in sorted(small_v2.rglob("*.json"))]
    corpus.append((small_v2 / "benchmark" / "text" / "benchmark.csv").read_text("utf-8"))
    model = save_random_model(tmp_path / "model", corpus)
    (log,) = inspect_eval(
        "inspect_personamem/personamem_v2_32k",
        task_args={"data_dir": str(small_v2), "answer": "logprob", "context_window": 1500},
        model="hf/local",
        model_args={"model_path": str(model), "device": "cpu"},
        log_dir=str(tmp_path / "logs"),
        display=DISPLAY,
        limit=4,
    )
    assert log.status == "success", log.error
    assert log.results is not None and "pref_type_" in " ".join(log.results.scores[0].metrics)
    for sample in log.samples or []:
        assert [m.role for m in sample.messages] == ["user", "assistant"]
        assert sample.messages[0].text == AskedAt.of(sample.metadata).message
        assert len(sample.metadata["logprob"]["options"]) == 4
        assert sample.metadata["logprob"]["chosen"] in LETTERS[:4]
