"""PersonaMem-v3 (Jiang et al., 2026): per persona, five apps' event streams, a calendar
and a profile, masked at each query's time; 31 task types in 5 families. The registered
version is `version.py` (`docs/personamem-v3.md` says what it is and how it differs from
the authors' harness):

- `tasks`: the table of the 31 task types (`TASK_TYPES`), one `TaskType` each: family,
  headline metric key, kind and raw scale, judged or not; and the pipeline's own
  `task_family` codes (`FAMILY_CODES`).
- `spec`: the release (repository, licence, revision: a third party's commit, not
  verified), the hub's and a GitHub checkout's layouts, what a `data_dir` must hold;
  `hub`: the download of every persona's files at one commit.
- `records`, `testjson`: the query rows of `queries.csv` and of the hub's `test.json`,
  each bad cell a one-line error.
- `streams`: a persona's streams read once; `visible(persona, T)`, the authors' mask and
  stripped fields. `longctx`: the long-context text after the authors'
  `serialize_history_for_context`. `histories`: the streams as `data.contexts.Contexts`,
  and the `AskedAt` a query fills. `samples`: a query row as a sample (the task's
  prompt without the history; the scorer-only fields apart).
- `ranking`: how a reply's ranking is read, graded NDCG@k over a candidate slate (the
  three ranking tasks) and the lifecycle task's match rate and score.
- `rules`: the other rules: the substantive-reply gate, leak rate, tail diversity of the
  repetition tasks, geo-shift correctness, warn/foil paired F1, the accuracy-scale
  conversions to 0-100 and the polarity-aware rubric combiner.
- `judge`: the authors' judge prompts (fixed texts verbatim, with their digests), which
  rubric dimensions apply to which task, and how a judge's reply is read (a reply that
  gives no score is `Unreadable`, never 0).
- `judged`: the judged task types scored through the `grader` model role with those
  prompts, on the authors' 0-100; an unreadable judgement, and the five types no
  readable judge scores, unscored (never 0).
- `verifiers`: what the authors' agentic runner checks of an agent run beside the judge
  (its `tool_call_rules`, `final_state_expected`, the output-quality verifiers) and the
  status they give a row; `judged` reads them where a sample has `actions`.
- `memory_writer`: the authors' Markdown memory (`llm_memory`) as a memory system.
- `apps`: the persona's apps at a query's time as tools (`AppSession`: reads masked
  before T, the writes the row allows, recorded); `app_server`: the same tools as an
  MCP server over stdio.
- `agent`: the apps agent (`history=apps`, a history source v3 adds): the apps as
  `react()`'s tools, in process or over MCP, within the authors' budgets; each query's
  `actions`.
- `published`: the paper's Figure 3 numbers, set beside every v3 run.
- `scorers`: `v3_scorer`, every task type's headline, 0-1 (the authors' 0-100 over 100;
  by rule, or through `judged`), and its metrics: `accuracy` (the micro mean) and the
  macro, per family and task type, each with an interval clustered by persona; the
  lifecycle pairs and the warn/foil paired F1 joined over the samples; the gated replies counted.
- `offline`: what the offline models read (each query's top-scoring and low replies for
  `personamem/oracle`, a prompt as `personamem/floor` reads it) and what `try` writes
  and runs; `oracle_agent`: the oracle as an agent over the apps (reads, then the write
  its reply implies); `cost`: the cost estimate's requests, counted in a folder or from
  the authors' figures.

Each rule follows one file of bowen-upenn/PersonaMem-v3 at a named commit (its docstring
says which); the code is ours (the authors' is MIT, not copied here). The data is
CC-BY-NC-4.0 (derived from facebook/gistbench).
"""
