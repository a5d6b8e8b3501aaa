"""The dataset versions: one package each, one entry each in `registry`.

- `base`: what a version declares (`DatasetVersion`): its files and release, its own
  task parameters, how its questions are read and checked, its histories, samples,
  scorers, metric groups and what the tools ask of it.
- `registry`: the versions by short name (`VERSIONS`), each a package here.
"""
