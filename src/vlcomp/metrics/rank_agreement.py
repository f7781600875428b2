"""Whether two measures rank a set of systems alike (BISON §4.2: "the ranking of
caption-based retrieval systems in terms of their BISON accuracy is similar to their
ranking in terms of retrieval measures"): Kendall's τ-b between the systems' values of the
two, with a bootstrap interval over both measures' items. Each measure is resampled by its
own benchmark's generator (`vlcomp.metrics.uncertainty.bootstrap_rng`), so its draws are
those of its uncertainty table and the two benchmarks' items are resampled independently."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

COLUMNS = ["metric", "value", "ci_low", "ci_high", "p_bootstrap", "n", "concordant",
           "discordant", "systems", "measure_a", "measure_b"]


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """τ-b of each row of ``x`` against the same row of ``y`` (shape (r, k) or (k,): k
    systems), in [-1, 1]; NaN where a row ranks every system equal."""
    x, y = np.atleast_2d(np.asarray(x, np.float64)), np.atleast_2d(np.asarray(y, np.float64))
    if x.shape != y.shape:
        raise ValueError(f"two measures of different shapes: {x.shape} and {y.shape}")
    i, j = np.triu_indices(x.shape[1], 1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    untied = np.sqrt((sx != 0).sum(axis=1) * (sy != 0).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, (sx * sy).sum(axis=1) / untied, np.nan)


def group_values(values: Mapping[str, float], draws: Mapping[str, np.ndarray],
                 systems: Mapping[str, Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Each system's value and draws (k,), (r, k): the mean over its models (seeds)."""
    missing = [m for members in systems.values() for m in members if m not in values]
    if missing:
        raise ValueError(f"no number for {', '.join(missing)}")
    value = np.array([np.mean([values[m] for m in ms]) for ms in systems.values()])
    drawn = np.stack([np.mean([draws[m] for m in ms], axis=0) for ms in systems.values()],
                     axis=1)
    return value, drawn


def rank_agreement(a: tuple[Mapping[str, float], Mapping[str, np.ndarray]],
                   b: tuple[Mapping[str, float], Mapping[str, np.ndarray]],
                   systems: Mapping[str, Sequence[str]], *, names: tuple[str, str],
                   confidence: float = 0.95) -> pd.DataFrame:
    """One row: τ-b × 100 between measures ``a`` and ``b`` (each: model -> full-sample
    value, model -> its bootstrap draws) over ``systems`` (label -> model ids), with the
    percentile interval of the draws' τ and the share of draws at or below 0 (one-sided
    bootstrap p of "agree more than unrelated rankings")."""
    if len(systems) < 3:
        raise ValueError(f"a ranking needs at least 3 systems, got {len(systems)}")
    value_a, draws_a = group_values(*a, systems)
    value_b, draws_b = group_values(*b, systems)
    if len(draws_a) != len(draws_b):
        raise ValueError(f"{len(draws_a)} and {len(draws_b)} resamples: use the same number")
    tau = float(kendall_tau_b(value_a, value_b)[0])
    drawn = kendall_tau_b(draws_a, draws_b)
    drawn = drawn[np.isfinite(drawn)]
    tail = (1 - confidence) / 2
    low, high = (np.percentile(drawn, [100 * tail, 100 * (1 - tail)]) if len(drawn)
                 else (np.nan, np.nan))
    i, j = np.triu_indices(len(systems), 1)
    signs = np.sign(value_a[i] - value_a[j]) * np.sign(value_b[i] - value_b[j])
    return pd.DataFrame([{
        "metric": "kendall_tau", "value": 100 * tau, "ci_low": 100 * float(low),
        "ci_high": 100 * float(high),
        "p_bootstrap": float(np.mean(drawn <= 0)) if len(drawn) else np.nan,
        "n": len(systems), "concordant": int((signs > 0).sum()),
        "discordant": int((signs < 0).sum()), "systems": "; ".join(systems),
        "measure_a": names[0], "measure_b": names[1]}], columns=COLUMNS)
