"""PersonaMem-v2: its entry (`version`), its data, scorers, generator and report.

- `spec`: the release (repository, pinned revision, licence, question files, what is
  known of them), the `subset` (benchmark, train, val) and history `length` (32k,
  128k) choices, and `V2Source`: a subset and where its files come from.
- `records`: question rows read and validated, every column parsed by its kind.
- `files`: find the question file and, when first needed, a persona's history (a
  folder, or the hub at the pinned revision); check the question file against the
  release. `load_questions(source)` does all of it for a subset.
- `histories`: each persona's history read once and shared by its questions.
- `prompt`, `samples`: the authors' messages, and records to samples.
- `extraction`, `scorer`: the authors' answer rule; `judge`, `judged`: their judge.
- `generator`: synthetic subsets in the released layout; `report`, `published`: its
  report sections and the numbers published about it.

Shared with every version: the CSV reading (`data.csv_rows`), the file locator
(`data.files`), the message conversion (`data.contexts`), the UTF-8 checks.
"""
