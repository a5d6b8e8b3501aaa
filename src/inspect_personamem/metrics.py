"""Metrics shown in `inspect view`: overall, per category, per topic, per distance.

Names are flat in the log, so each family has its own prefix: `category_<key>` (and
`category_macro`, the mean over categories), `topic_<topic>`, `sessions_<n>` (one per
`distance_to_ref_in_blocks` value, the paper's Figure 4), `sessions_bin_<range>`.
`stderr` is clustered by shared context: questions over one history are not
independent, and treating them as such understates the error.
"""

from __future__ import annotations

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    accuracy,
    grouped,
    metric,
    stderr,
)

CLUSTER_KEY = "shared_context_id"


@metric
def unparsed() -> Metric:
    """Share of responses in which no single option letter could be read.

    With several epochs Inspect keeps the first epoch's score metadata, so this is
    the first epoch's share.
    """

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return float("nan")
        failed = sum(
            1 for s in scores if (s.score.metadata or {}).get("status", "single") != "single"
        )
        return failed / len(scores)

    return compute


def personamem_metrics() -> list[Metric]:
    """The scorer's metrics, in the order `inspect view` shows them."""
    return [
        accuracy(),
        stderr(cluster=CLUSTER_KEY),
        unparsed(),
        grouped(
            accuracy(),
            "category",
            all="groups",
            all_label="category_macro",
            name_template="category_{group_name}",
        ),
        grouped(accuracy(), "topic", all=False, name_template="topic_{group_name}"),
        grouped(
            accuracy(),
            "distance_to_ref_in_blocks",
            all=False,
            name_template="sessions_{group_name}",
        ),
        grouped(accuracy(), "distance_bin", all=False, name_template="sessions_bin_{group_name}"),
    ]
