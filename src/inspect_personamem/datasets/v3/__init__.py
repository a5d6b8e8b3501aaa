"""PersonaMem-v3 (Jiang et al., 2026): per persona, five apps' event streams, a calendar
and a profile, masked at each query's time; 31 task types in 5 families. Groundwork:
the query rows (`records`), the streams and their masked view (`streams`) and the
long-context text (`longctx`); not yet a registered version (`docs/development.md`,
"Where PersonaMem-v3 will sit"). The data is CC-BY-NC-4.0 (derived from
facebook/gistbench)."""
