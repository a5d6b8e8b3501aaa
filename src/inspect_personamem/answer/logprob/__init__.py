"""Local open-weight models: the paper's log-likelihood setting (§4.5).

`template` builds the token ids (chat template, shared prefix, options), `truncation`
fits them into the context window, `hf` computes the options' log-probabilities on a
transformers model sharing the prefix's attention cache (kept by `kv_cache`, attended
to through `attention`), `server` on an OpenAI-compatible server (vLLM), `backend`
picks one for an Inspect model, `stats` holds what a question cost, `choice`
normalises and picks, and `solver` ties them into an Inspect solver.
(`offline/random_model.py` builds a random model and tokenizer for tests, benchmarks
and the offline recipes.)
"""
