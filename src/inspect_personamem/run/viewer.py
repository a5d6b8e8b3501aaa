"""What a run's log declares for `inspect view`: its header, its headline metric and its
sample list.

The header holds the result alone, the same numbers the report and the results card
give: the headline `accuracy` (every task declares it, `HEADLINE`; for PersonaMem's
choice runs the paper's figure, for open and judged runs the version's accuracy as
graded or judged, for PersonaMem-v3 the authors' micro mean over rows), its 95%
interval `ci_low` / `ci_high` (`scoring.intervals.interval`: Wilson's, clustered by
shared history), its clustered `stderr`, then one figure of the version's (the
unparsed share; v3's `macro`; an open run's first grader figure). Inspect's viewer
shows the metrics of the first score that carry no `group_key` in a card of at most
five columns 64 px wide beside the title (its `ResultsPanel`): so these come first
under short names, every breakdown (per question type, topic, distance, family, task
type, app) is logged as Inspect's `grouped` logs its own (with a `group_key` and a
`metric`) and is listed under "All scoring", and the card never reaches the title,
the model or the tags at 1280 px. The card's scorer cell says how many samples were
scored of the run's (Inspect's own count, cut short where the scorer's name is long);
what the accuracy counts is in the log beside it (v3's `rows`: a lifecycle pair of two
probes counts once). The viewer draws every value with a decimal point, counts too
(`153.0`): it cannot tell 153 from 153.0 once the log is read.

The sample list shows the question, the expected letter, the answer the scorer read
and its verdict, sortable and filterable. This viewer draws no columns from sample
metadata: a question's type, topic, distance bin and retrieval status are filtered by
the list's filter box (`metadata.category == "suggest_new_ideas"`: double quotes; the
filter reads single quotes as no match) and shown in each sample's Metadata tab; the
score panel shows the parsed answer, the explanation (with the correct option's text)
and, for an unscored question, its `Score.reason`.
"""

from __future__ import annotations

from typing import Final

from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Scorer
from inspect_ai.util import registry_info
from inspect_ai.viewer import TaskSamplesColumn, TaskSamplesView, ViewerConfig

from inspect_personamem.scoring.intervals import INTERVAL_NAMES

HEADLINE: Final = HeadlineMetric(metric="accuracy")
"""The headline of every task: the first score's `accuracy`."""

HEADER: Final = ("accuracy", *INTERVAL_NAMES, "stderr")
"""The first four columns of every log's header card, in order (a fifth is the
version's own)."""

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
