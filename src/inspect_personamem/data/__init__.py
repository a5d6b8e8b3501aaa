"""What every dataset version reads its files with, never a model.

- `release`: what is known of a released file (rows, bytes, sha256) and a version's
  hub repository at its pinned revision; the marks of a task's `data_release`.
- `files`: find a version's files (a folder, or the hub at the pinned revision),
  check each against the release, and say so (`data_release`, `data_checked`).
- `provenance`: which files of a folder the package generated.
- `csv_rows`: a question CSV's rows, checked for shape and encoding; `utf8`: finding a
  byte that is not UTF-8.
- `contexts`: histories as Inspect messages (`Contexts`, what a history source reads),
  and the shared-context JSONL store.
- `options`: the four options, parsed and rendered, and how a chosen letter is written.
- `order`: the order questions are sent in, and the history ends worth caching.
"""
