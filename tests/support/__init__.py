"""What the tests share, imported as `support.<module>` (pyproject puts tests/ on the
path):

- `helpers`: where the fixture and real data lie, an offline mock model, running a task
  or a script;
- `graders`: stand-in graders for open answers;
- `memories`: memory systems that record or misbehave, a tiny embedding model;
- `logprob`: a random local model and a stand-in vLLM completions server;
- `history_source`: a test-only history source;
- `released`: the fixture that lets synthetic splits stand in for the released files;
- `servers`: local stand-ins of the web APIs the package talks to.

Pytest's own fixtures and markers stay in tests/conftest.py."""
