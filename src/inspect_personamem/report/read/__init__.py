"""The report's first layer: Inspect logs read into plain run records (`Run`,
`SampleResult`), with nothing computed across runs; the analyses (`report/accuracy.py`,
`differences.py`, `pairs.py`, ...) read these, and the renderers (tables, figures, page,
card) read the analyses."""
