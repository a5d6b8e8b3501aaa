"""PersonaMem-v3 (Jiang et al., 2026): per persona, five apps' event streams, a calendar
and a profile, masked at each query's time; 31 task types in 5 families. The registered
version is `version.py` (`docs/personamem-v3.md` says what it is and how it differs from
the authors' harness). Its folders, from the bottom up:

- `loading`: a release's queries read for a run (which personas, families, layouts).
- `release/`: the release (`spec`: repository, licence, revision, the hub's and a
  GitHub checkout's layouts, what a `data_dir` must hold; `hub`: the download;
  `families`: the paper's families, the 31 task types each holds, the pipeline's
  `task_family` codes); `records`, `testjson`: the query rows of `queries.csv` and of
  the hub's `test.json`, each bad cell a one-line error.
- `persona/`: a persona at a time (`streams`: its files read, `visible(persona, T)`,
  the authors' mask; `longctx`: the long-context text after the authors'
  `serialize_history_for_context`; `timeline`: what a run keeps of a persona once its
  samples are built; `histories`: the timelines as `data.contexts.Contexts` and the
  `AskedAt` a query fills).
- `reading/`: how a reply is read (`reply`: its JSON, the text a rule or a judge reads,
  the substantive gate, a judge's object; a reply that gives no score is `Unreadable`,
  never 0) and the authors' 0-100 (`scale`).
- `prompts/`: each template (`chatbot`, `slate`, `agentic`) and the view through which a
  prompt reads an instance (`shown`: the scorer-only fields refused).
- `rules/`: the deterministic rules, one module each with its rule object (ranking's
  graded NDCG@k, lifecycle, geo shift, warn/foil and paired F1, leak rates, tail
  diversity, the rubric's polarity combiner, the agent run's output checks).
- `judges/`: the authors' judges, one module each with its fixed texts verbatim (their
  digests in `texts`) and its judge object (rubric, sycophancy, proactive, new
  suggestions, abstention, deep motivation).
- `task_types/`: one `TaskType` object per type (its row, prompt, rule or judge), per
  family, gathered in `registry.TASK_TYPES`; `samples`: a query row as a sample.
- `scoring/`: `scorers.v3_scorer` (every type's headline, 0-1: by its rule,
  `by_rule`, or through the grader, `judged`, which checks an agent run's actions by
  `verifiers`) and `metrics` (`accuracy`, the micro mean, and the macro, per family
  and type, each with an interval clustered by persona; the lifecycle pairs and the
  warn/foil paired F1 joined over the samples; the gated replies counted).
- `agent/`: the persona's apps at a query's time as tools (`catalogue`, `store`, `reads`,
  `writes`, `session`, `inspect_tools`; `server`: the same over MCP, in `mcp_stdio`'s
  protocol) and the apps agent (`setting`, `served`: `history=apps`, a history source
  v3 adds, in process or over MCP, within the authors' budgets; each query's
  `actions`).
- `offline/`: what the offline models read (`answers`: each query's top-scoring and low
  replies, the judge's offline judgements, a prompt as the floor reads it, `try`'s
  runs; `agent`: the oracle as an agent over the apps).
- `generator`: generated personas in both layouts, for tests, the oracle and `try`: a
  persona's world (`synthetic.world`) and each task type's queries from its instance
  builder (`synthetic/`, one module per family). `memory_writer`: the authors'
  Markdown memory as a memory system. `published`: the paper's Figure 3 numbers.
  `cost`: the cost estimate's requests.

Each rule follows one file of bowen-upenn/PersonaMem-v3 at a named commit (its docstring
says which); the code is ours (the authors' is MIT, not copied here). The data is
CC-BY-NC-4.0 (derived from facebook/gistbench).
"""
