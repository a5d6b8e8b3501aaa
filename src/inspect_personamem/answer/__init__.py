"""How the model answers (`-T answer=...`), one module per way.

- `choice`: the official prompt (history, question, instruction, four options); the
  model writes its answer. `cache_breakpoints`: Anthropic prompt-cache markers.
- `logprob/`: the paper's log-likelihood setting for local models: each option scored
  by its likelihood after the history and the question alone.
"""
