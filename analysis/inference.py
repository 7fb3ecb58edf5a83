"""The few tests the report needs to name a winner honestly: intervals for rates and
their differences, tests against a fair share and between two rates, and Holm's
correction for testing several at once. The Wilson interval and the binomial test are
scipy's (``binomtest``); the pooled two-rate z-test, Newcombe's difference interval and
Holm's correction are written here (scipy has none of them; its ``false_discovery_control``
is Benjamini–Hochberg's, which the fraud screens use).

>>> lo, hi = wilson(5, 10)
>>> round(lo, 4), round(hi, 4)
(0.2366, 0.7634)
>>> d, lo, hi = newcombe_diff(56, 70, 48, 80)  # Newcombe (1998), Table II, example (a)
>>> round(d, 4), round(lo, 4), round(hi, 4)
(0.2, 0.0524, 0.3339)
>>> round(prop_p(7, 10, 0.5), 5)  # exact binomial: 2 × P(X ≥ 7)
0.34375
>>> round(two_prop_p(30, 50, 20, 50), 4)
0.0455
>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import math

from scipy.special import ndtri
from scipy.stats import binomtest

#: the 97.5% normal quantile (1.959963984540054), scipy's own for its 95% intervals; the
#: SQL macros of analysis/sql/_setup.sql spell the same number (a test keeps them equal)
Z = float(ndtri(0.975))


def wilson(k: float, n: float) -> tuple[float, float]:
    """95% Wilson score interval of k successes in n trials: scipy's
    (``binomtest(k, n).proportion_ci(method="wilson")``), which the SQL macros
    ``wilson_lo``/``wilson_hi`` compute digit for digit (tests/test_analysis.py)."""
    if n <= 0:
        return math.nan, math.nan
    ci = binomtest(int(k), int(n)).proportion_ci(0.95, method="wilson")
    return float(ci.low), float(ci.high)


def newcombe_diff(k1: float, n1: float, k2: float, n2: float) -> tuple[float, float, float]:
    """p1 − p2 with its 95% interval (Newcombe's hybrid score method, from the Wilson intervals)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def _normal_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def two_prop_p(k1: float, n1: float, k2: float, n2: float) -> float:
    """Two-sided p-value that two rates are equal: the pooled z-test where every cell of
    the 2×2 table expects 5 or more, else Fisher's exact test (scipy). The z-test on a
    handful of hands is far too sure: 1 of 1 against 0 of 41 gave p < 0.001 (the report
    called that difference significant until 2026-12-04), where the exact p is 0.024.

    >>> round(two_prop_p(1, 1, 0, 41), 3), round(two_prop_p(1, 1, 20, 204), 3)
    (0.024, 0.102)
    """
    total, hits = n1 + n2, k1 + k2
    if total <= 0:
        return 1.0
    if min(n1, n2) * min(hits, total - hits) / total < 5:
        import numpy as np
        from scipy.stats import fisher_exact

        a, b = int(round(k1)), int(round(k2))
        return float(fisher_exact(np.array([[a, int(round(n1)) - a], [b, int(round(n2)) - b]])).pvalue)
    p = hits / total
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return _normal_p((k1 / n1 - k2 / n2) / se)


def prop_p(k: float, n: float, p0: float) -> float:
    """Two-sided p-value that a rate differs from *p0*: scipy's exact binomial test, at any
    number of trials (a score z-test stood in above 2,000 before)."""
    if n <= 0:
        return 1.0
    return float(binomtest(int(round(k)), int(round(n)), p0).pvalue)


def fisher_combined(pvalues: list[float]) -> tuple[float, float]:
    """Fisher's method: (X, p), X = −2 Σ ln p_i and p = P(χ² with 2m degrees of freedom ≥ X),
    each p kept at 1e-300 or more (one p of 0 would make the combination 0 whatever the
    others). Assumes independent p's.

    >>> x, p = fisher_combined([0.01, 0.01]); round(x, 3), round(p, 6)
    (18.421, 0.001021)
    """
    from scipy.stats import combine_pvalues

    r = combine_pvalues([max(p_i, 1e-300) for p_i in pvalues], method="fisher")
    return float(r.statistic), float(r.pvalue)


def holm(pvalues: list[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values (same order as given)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = round(running, 12)
    return adjusted


def mean_interval(mean: float, sd: float | None, n: int) -> tuple[float, float]:
    """Normal 95% interval of a mean (sd: sample standard deviation)."""
    if n < 2 or sd is None or math.isnan(sd):
        return math.nan, math.nan
    half = Z * sd / math.sqrt(n)
    return mean - half, mean + half
