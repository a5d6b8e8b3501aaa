"""The synthetic generator's pieces, below the driver (`datasets/v3/generator.py`): a
persona's world (`world`, `vocabulary`, `profile`), what an instance builder is
(`instance`), one module per family holding one builder per task type
(`personalization`, `recommendation`, `over_personalization`, `agentic_tasks`,
`agentic_proactiveness`), and the builders by task type's name (`builders`). Nothing here
imports `tasks`: a task type will hold its builder."""
