"""Cost tools: the prices, the estimate before a run, and the provider usage after it.

`prices` (the price table: an Inspect model cost configuration, `model_costs.yaml`),
`batch` (each provider's batch terms), `prompt_cache` (a simulator of provider prompt
caching under a sample order), `estimate` (tokens and dollars of a run), `usage` (what
the provider reported and Inspect priced, read from a log), `cli` (`inspect-personamem
estimate`) and `prices_cli` (`inspect-personamem prices`).
"""
