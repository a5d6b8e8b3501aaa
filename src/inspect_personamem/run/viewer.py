"""What a run's log declares for `inspect view`: its headline metric and its sample list.

Every task declares `accuracy` its headline (for PersonaMem's choice runs the paper's
figure; for open and judged runs the version's accuracy as graded or judged), so the
viewer's header leads with it and shows the rest as its breakdown. The sample list
shows the question, the expected letter, the answer the scorer read and its verdict,
sortable and filterable. This viewer draws no columns from sample metadata: a
question's type, topic, distance bin and retrieval status are filtered by the list's
filter box (`metadata.category == 'suggest_new_ideas'`) and shown in each sample's
Metadata tab; the score panel shows the parsed answer, the explanation (with the
correct option's text) and, for an unscored question, its `Score.reason`.
"""

from __future__ import annotations

from typing import Final

from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Scorer
from inspect_ai.util import registry_info
from inspect_ai.viewer import TaskSamplesColumn, TaskSamplesView, ViewerConfig

HEADLINE: Final = HeadlineMetric(metric="accuracy")
"""The headline of every task: the first score's `accuracy`."""

SAMPLES_VIEW_NAME: Final = "PersonaMem questions"
"""The sample list view's name."""


def scorer_name(scorer: Scorer) -> str:
    """A scorer's name as the log keys its scores (without its package)."""
    return registry_info(scorer).name.rsplit("/", 1)[-1]


def viewer_config(scorer: Scorer) -> ViewerConfig:
    """The sample list of a run scored by `scorer`: id, question, expected letter, the
    answer read, its verdict, tokens, time and any limit that stopped a question."""
    name = scorer_name(scorer)
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name=SAMPLES_VIEW_NAME,
            columns=[
                TaskSamplesColumn(id="sampleId"),
                TaskSamplesColumn(id="input"),
                TaskSamplesColumn(id="target"),
                TaskSamplesColumn(id="answer"),
                TaskSamplesColumn.score(name),
                TaskSamplesColumn(id="tokens"),
                TaskSamplesColumn(id="duration"),
                TaskSamplesColumn(id="limit"),
            ],
        ),
    )
