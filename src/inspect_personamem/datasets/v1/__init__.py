"""PersonaMem (v1): its entry (`version`), its release (`spec`, `splits`,
`released_rows` with the 32k file's rows in `released/`), its rows (`records`,
`question_types`), its files (`files`), its prompt (`prompt`) and samples (`samples`),
and its generator of synthetic splits (`generator`)."""
