"""Agreement and Cohen's kappa between two gradings, with cluster bootstrap intervals."""

from __future__ import annotations

import math

from inspect_personamem.report.agreement import agreement_of


def test_kappa_is_agreement_beyond_chance() -> None:
    """20 verdicts, 14 the same: agreement 0.7. One grading says (a) on 10 and (b) on 10,
    the other (a) on 12 and (b) on 8: chance 0.5 * 0.6 + 0.5 * 0.4 = 0.5, so kappa
    (0.7 - 0.5) / (1 - 0.5) = 0.4."""
    pairs = [
        *[("x", "(a)", "(a)")] * 8, *[("y", "(a)", "(b)")] * 2,
        *[("x", "(b)", "(a)")] * 4, *[("y", "(b)", "(b)")] * 6,
    ]  # fmt: skip
    found = agreement_of(pairs)
    assert (found.n, found.contexts) == (20, 2)
    assert math.isclose(found.agreement.value, 0.7) and math.isclose(found.kappa.value, 0.4)
    assert found.agreement.low <= 0.7 <= found.agreement.high


def test_perfect_agreement_and_one_verdict_throughout() -> None:
    same = agreement_of([(c, v, v) for c in "abc" for v in ("(a)", "none", "unreadable")])
    assert (same.agreement.value, same.agreement.low, same.agreement.high) == (1.0, 1.0, 1.0)
    assert (same.kappa.value, same.kappa.low, same.kappa.high) == (1.0, 1.0, 1.0)
    # both say none throughout: they agree, but chance would too: kappa undefined
    alike = agreement_of([(c, "none", "none") for c in "abc"])
    assert alike.agreement.value == 1.0 and math.isnan(alike.kappa.value)


def test_no_interval_within_one_history_and_nothing_without_verdicts() -> None:
    one = agreement_of([("x", "(a)", "(a)"), ("x", "(a)", "(b)")])
    assert one.agreement.value == 0.5 and math.isnan(one.agreement.low)
    assert agreement_of([]).n == 0 and math.isnan(agreement_of([]).agreement.value)


def test_the_interval_is_clustered_by_history_and_seeded() -> None:
    """The same 48 verdicts (a quarter disagreeing) over 4 histories: disagreements
    spread over the histories, or all in one of them. Questions of one history go
    together, so the second gives the wider interval; the same verdicts give the same
    interval again."""
    agreeing, differing = ("(a)", "(a)"), ("(a)", "(b)")
    spread = [(h, *(differing if i < 3 else agreeing)) for h in "abcd" for i in range(12)]
    lumped = [(h, *(differing if h == "a" else agreeing)) for h in "abcd" for i in range(12)]
    wide, narrow = (agreement_of(pairs).agreement for pairs in (lumped, spread))
    assert wide.value == narrow.value == 0.75
    assert wide.high - wide.low > narrow.high - narrow.low
    assert agreement_of(lumped).agreement == wide
