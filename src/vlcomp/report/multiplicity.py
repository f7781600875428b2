"""The papers' claims tested together: each finding's one-sided p-value, each claim's p-value
over its findings, and Holm's and Benjamini–Hochberg's adjustments within a paper.

A finding holds when its interval clears the claim's margin (`vlcomp.report.findings.verdict`):
with a two-sided ``confidence`` interval that is a one-sided test at level
``(1 - confidence) / 2`` (2.5 % for 95 % intervals). Its p-value is read from the interval (a
normal approximation with the standard error the interval implies; Student's t with its
degrees of freedom for a t interval over seeds), so it is below the level exactly when the
finding holds.

A claim holds when ``k`` of its ``n`` findings run hold: all of them (``k = n``), or most
(``k = n // 2 + 1``). Its p-value is ``min(1, (n - k + 1) · p₍ₖ₎)``, ``p₍ₖ₎`` the k-th smallest
of its findings' p-values: a valid test of "fewer than k of the n comparisons go the claimed
way" under any dependence between them (at least one of the ``n - k + 1`` or more true nulls
would have to fall below ``p₍ₖ₎``). For a claim of all its findings that is the largest
p-value, the intersection–union test, which needs no correction inside the claim.

Within each paper's family of claims, Holm's step-down adjustment (Holm 1979) bounds the
chance of any false "holds" at the one-sided level without assuming the claims independent
(they share models and items), and Benjamini–Hochberg's (1995) bounds the expected share of
false "holds" among those that hold (independent or positively dependent claims). A paper's
verdicts do not move when another paper's claims are added.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def claim_p_value(test: str, margin: float, effect: float, low: float, high: float,
                  confidence: float = 0.95, df: int | None = None) -> float:
    """The one-sided p-value of a finding's test (``greater``: a - b > margin; ``less``:
    a - b < -margin; ``not_below``: a - b >= -margin; ``not_above``: a - b <= margin;
    ``within``: |a - b| <= margin, the larger of its two one-sided tests) from the effect
    and its interval; NaN without one."""
    from scipy import stats

    if not all(math.isfinite(v) for v in (effect, low, high)):
        return math.nan
    dist = stats.t(df) if df else stats.norm
    se = (high - low) / (2 * float(dist.ppf(0.5 + confidence / 2)))

    # an exact number (no interval) clears a strict bound (greater, less) only beyond it, an
    # inclusive one (not_below, not_above, within) also on it, as the interval verdicts do
    def above(bound: float, strict: bool) -> float:  # H0: a - b <= bound
        if se <= 0:
            return 0.0 if effect > bound or (not strict and effect == bound) else 1.0
        return float(dist.sf((effect - bound) / se))

    def below(bound: float, strict: bool) -> float:  # H0: a - b >= bound
        if se <= 0:
            return 0.0 if effect < bound or (not strict and effect == bound) else 1.0
        return float(dist.sf((bound - effect) / se))

    if test == "greater":
        return above(margin, True)
    if test == "less":
        return below(-margin, True)
    if test == "not_below":
        return above(-margin, False)
    if test == "not_above":
        return below(margin, False)
    if test == "within":
        return max(above(-margin, False), below(margin, False))
    raise ValueError(f"unknown claim test {test!r}")


def needed(quantifier: str, n: int) -> int:
    """How many of ``n`` findings run must hold: all, or most (more than half)."""
    if quantifier == "all":
        return n
    if quantifier == "most":
        return n // 2 + 1
    raise ValueError(f"unknown quantifier {quantifier!r}")


def at_least_p(p_values: Sequence[float], k: int) -> float:
    """The p-value of "at least k of these comparisons go the claimed way":
    ``min(1, (n - k + 1) · p₍ₖ₎)`` over the finite p-values (NaN when fewer than k)."""
    p = np.sort(np.asarray([v for v in p_values if math.isfinite(v)], dtype=float))
    n = len(p)
    if k < 1 or n < k:
        return math.nan
    return float(min(1.0, (n - k + 1) * p[k - 1]))


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's adjusted p-values (NaN stays NaN and does not count as a test)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    running, n = 0.0, len(order)
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (n - rank) * p[index]))
        out[index] = running
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values; NaN stays NaN, not a test)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    n = len(order)
    running = 1.0
    for rank in range(n - 1, -1, -1):
        index = order[rank]
        running = min(running, n * p[index] / (rank + 1))
        out[index] = min(1.0, running)
    return out


def one_sided_level(confidence: float) -> float:
    """The level of the one-sided test a two-sided ``confidence`` interval makes."""
    return (1 - confidence) / 2
