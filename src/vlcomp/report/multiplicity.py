"""A run's findings tested together: each claim's one-sided p-value and Holm's adjustment.

A finding holds when its interval clears the claim's margin (`vlcomp.report.findings.verdict`):
with a two-sided ``confidence`` interval that is a one-sided test at level
``(1 - confidence) / 2`` (2.5 % for 95 % intervals). Forty-odd such tests at once make some
false "holds" likely, so each finding also gets the p-value of its own test, read from its
interval (a normal approximation with the standard error the interval implies; Student's t
with its degrees of freedom for a t interval over seeds), and Holm's step-down adjustment of
those p-values across the run's findings (Holm 1979: it controls the family-wise error rate
without assuming the tests independent, which they are not: they share models and items).
A finding "holds after Holm" when its adjusted p-value is below the same one-sided level.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def claim_p_value(test: str, margin: float, effect: float, low: float, high: float,
                  confidence: float = 0.95, df: int | None = None) -> float:
    """The one-sided p-value of a claim's test (``greater``: a - b > margin; ``less``:
    a - b < -margin; ``not_below``:
    a - b >= -margin; ``not_above``: a - b <= margin; ``within``: |a - b| <= margin, the
    larger of its two one-sided tests) from the effect and its interval; NaN without one."""
    from scipy import stats

    if not all(math.isfinite(v) for v in (effect, low, high)):
        return math.nan
    dist = stats.t(df) if df else stats.norm
    se = (high - low) / (2 * float(dist.ppf(0.5 + confidence / 2)))

    def above(bound: float) -> float:  # H0: a - b <= bound
        if se <= 0:
            return 0.0 if effect > bound else 1.0
        return float(dist.sf((effect - bound) / se))

    def below(bound: float) -> float:  # H0: a - b >= bound
        if se <= 0:
            return 0.0 if effect < bound else 1.0
        return float(dist.sf((bound - effect) / se))

    if test == "greater":
        return above(margin)
    if test == "less":
        return below(-margin)
    if test == "not_below":
        return above(-margin)
    if test == "not_above":
        return below(margin)
    if test == "within":
        return max(above(-margin), below(margin))
    raise ValueError(f"unknown claim test {test!r}")


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


def one_sided_level(confidence: float) -> float:
    """The level of the one-sided test a two-sided ``confidence`` interval makes."""
    return (1 - confidence) / 2
