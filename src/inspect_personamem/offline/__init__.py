"""Tools that need no network, no key and no download: the `try` command, the offline
models of the `personamem` provider (`personamem/oracle`, `personamem/floor`), what they
read of a prompt (`known`), and a random local model (for the offline recipes, tests and
benchmarks). What is particular to a dataset version is its entry's
(`datasets.registry`): the data `try` writes, the question files and prompts the models
read."""
