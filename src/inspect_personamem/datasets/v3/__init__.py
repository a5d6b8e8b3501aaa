"""PersonaMem-v3 (groundwork, not registered): the authors' deterministic scoring rules.

- `ranking`: how a reply's ranking is read, graded NDCG@k over a candidate slate (the
  three ranking tasks) and the lifecycle task's match rate and score.
- `rules`: the other rules: the substantive-reply gate, leak rate, tail diversity of the
  repetition tasks, geo-shift correctness, warn/foil paired F1, the accuracy-scale
  conversions to 0-100 and the polarity-aware rubric combiner.
- `tasks`: the table of the 31 task types (`TASK_TYPES`): family, headline key, kind.

Each function follows one file of bowen-upenn/PersonaMem-v3 at a named commit (its
docstring says which); the code is ours (the authors' is MIT, not copied here).
"""
