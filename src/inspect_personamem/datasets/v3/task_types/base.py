"""What a PersonaMem-v3 task type is: one object with its row, its prompt and its scorer.

- Row: the family (the paper's Figure 4, as the authors' release script lists them:
  `FIG4` in `scripts/export_hf_release.py`, `release.families`), the headline metric
  key and kind (`evaluation/task_registry.py`@8e2a111f `PRIMARY_METRIC`, the newest
  readable copy: older copies differ, see `docs/personamem-v3.md`; where 8e2a111f gives
  `preference_shift_consistency` as 0-10 the shared doc says a 0-3 judge: 8e2a111f is
  followed), the metric's raw scale in words, `heavy` (the authors' double agent budget,
  `HEAVY_TASKS` of evaluation/claude_subagent.py@d50925ff) and `gated` (whether the
  15-distinct-token gate zeroes a short reply before its judge is called).
- Prompt: `prompts.shown.TaskPrompt` (the template, its source and provenance).
- Scorer: a `rules.score.Rule` or a `judges.base.Judge`; `judged` says which. A type the
  older per-dimension 0-3 rubric judged also keeps that judge (`per_dimension`), which
  `-T judge=per_dimension` scores it with (`scorer_for`); the default is the published
  rows' unified 0-10 judge (`judges.unified`).
- Instance: the generator's builder of its queries (`synthetic.instance.InstanceBuilder`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from inspect_personamem.datasets.v3.judges.base import Judge
from inspect_personamem.datasets.v3.judges.base import JudgeChoice as JudgeChoice
from inspect_personamem.datasets.v3.prompts.shown import TaskPrompt
from inspect_personamem.datasets.v3.reading.scale import Headline, ScaleKind
from inspect_personamem.datasets.v3.release.families import Family
from inspect_personamem.datasets.v3.rules.quality import Verifier
from inspect_personamem.datasets.v3.rules.score import Rule
from inspect_personamem.datasets.v3.synthetic.instance import InstanceBuilder

JUDGE_CHOICES: Final[tuple[JudgeChoice, ...]] = ("unified", "per_dimension")
"""The judges `-T judge=` takes, the default first: `unified`, the one 0-10 judge call
the published rows were scored with; `per_dimension`, the older 0-3 judge, one call per
dim (personalization_rubric.py@8fd0dd9b)."""


@dataclass(frozen=True)
class TaskType:
    """One task type (module docstring)."""

    name: str
    family: Family
    metric: str
    """The key of the row's metrics that holds the headline."""
    kind: ScaleKind
    """How `reading.scale.accuracy_value` puts that metric on 0-100."""
    scale: str
    """The metric's raw scale, in words."""
    prompt: TaskPrompt
    scorer: Rule | Judge
    instance: InstanceBuilder
    """How the synthetic generator makes this type's queries for a persona
    (`synthetic/`, one module per family, a function named after the type)."""
    heavy: bool = False
    """One of the authors' nine heavy types, which their agent runs get 30 turns and
    600,000 tokens for (15 and 300,000 for the others)."""
    gated: bool = False
    """Whether a judged row whose text has under 15 distinct tokens scores 0 without a
    judge call: where the authors' runner applies the gate or was not read (issue 38).
    False where the runner was read and has none (the proactive types, whose right
    answer may be a terse silence, hidden-persona QA, new suggestions, the agentic
    types' generic dispatch) and for a rule, which applies its own where theirs does."""
    verifier: Verifier | None = None
    """The output-quality verifier an agent run of this type is checked with
    (`rules.quality`), None for none."""
    per_dimension: Judge | None = None
    """Its judge under `-T judge=per_dimension` where that differs from `scorer` (the
    per-dimension 0-3 rubric, or why it gives no headline); None where it does not."""

    def scorer_for(self, judge: JudgeChoice) -> Rule | Judge:
        """Its scorer under `-T judge=`: `per_dimension` where asked for and held, else
        `scorer`."""
        if judge == "per_dimension" and self.per_dimension is not None:
            return self.per_dimension
        return self.scorer

    @property
    def judged(self) -> bool:
        """True where a judge gives the headline or part of its inputs; False where the
        reply and the instance alone give it."""
        return isinstance(self.scorer, Judge)

    @property
    def headline(self) -> Headline:
        """The headline's key and kind: the row's 0-100 (`Headline.accuracy`)."""
        return Headline(self.metric, self.kind)


PR: Final[tuple[str, ScaleKind, str]] = (
    "pr_combined_personalization_score",
    "pr_combined",
    "0-10 (judge=per_dimension: 0..3 per + dim)",
)
"""The rubric types' headline (metric, kind, scale)."""
PROACTIVE: Final[tuple[str, ScaleKind, str]] = ("proactive_action_score", "fraction", "0-1")
"""The proactive types' headline (metric, kind, scale)."""
NDCG: Final[tuple[str, ScaleKind, str]] = ("ndcg_at_5", "fraction", "NDCG")
"""The ranking types' headline (metric, kind, scale)."""
