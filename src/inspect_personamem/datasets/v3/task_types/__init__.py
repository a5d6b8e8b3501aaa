"""PersonaMem-v3's 31 task types, one `TaskType` object each (`base`), defined per
family of the paper's Figure 4 (`personalization`, `recommendation`,
`over_personalization`, `agentic_tasks`, `agentic_proactiveness`) and gathered in
Figure 4's order by `registry.TASK_TYPES`; `samples` makes a query row a sample through
its type's prompt. A task type is its row (family, headline metric and kind, raw scale,
heavy, gated), its prompt (`prompts`) and its scorer: a rule (`rules`) or a judge
(`judges`), each of which also knows its offline reply and judgement. Every consumer
reads the object; a pipeline that takes a registry (`task_types=`) runs any other.
"""
