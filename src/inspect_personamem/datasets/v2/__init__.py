"""PersonaMem-v2's data: its released files, their rows and histories, never a model.

- `spec`: the release (repository, pinned revision, licence, question files, what is
  known of them), the `subset` (benchmark, train, val) and history `length` (32k,
  128k) choices, and `V2Source`: a subset and where its files come from.
- `records`: question rows read and validated, every column parsed by its kind.
- `files`: find the question file and, when first needed, a persona's history (a
  folder, or the hub at the pinned revision); check the question file against the
  release. `load_questions(source)` does all of it for a subset.
- `histories`: each persona's history read once and shared by its questions.

Shared with PersonaMem (v1): the CSV reading (`data.csv_rows`), the file locator
(`data.files`), the message conversion (`data.contexts`), the UTF-8 checks.
"""
