"""What the model sees of the past (`-T history=...`), one module per source.

- `context`: `full` (the whole history before the question) and `none`.
- `retrieved`: `rag` (the history messages most similar to the question) and `memory`
  (a memory system's items), both through `memory/`.
- `seen`: what a source hands to the answer: the messages, and where they stand.
- `system_messages`: the policy for system messages inside a history.
"""
