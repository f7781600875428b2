"""VisualGPTScore appendix Table 5's null half: a captioner's text score on a 2 × 2 pair
benchmark at the test-set oracle α*, with P(t) from n Gaussian null images, per sampling
seed (`vlcomp.score.text_prior.null_sampling_priors`, one `null_sampling_column` each),
and the mean and std over seeds.

The paper: "We ablate 3/10/100/1000 gaussian noise and LAION samples and report both mean
and std using 5 sampling seeds. The optimal α* ∈ [0, 1] is grid searched on testset via a
step size of 0.001." α* is the smallest α with the best text score (`best_alpha`); the std
is the population std (ddof 0), as the validation α*'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.alpha_curves import headline_aggregate, item_correct_over_alphas
from vlcomp.metrics.debias import alpha_grid, best_alpha


def null_sampling_column(seed: int, n: int) -> str:
    """The prior column of one draw (``seed``) and count (``n``) in a null-sampling table
    (`vlcomp.score.text_prior.null_sampling_priors` writes them)."""
    return f"log_prior_s{seed}_n{n}"


def null_sampling_runs(items: pd.DataFrame, priors: pd.DataFrame, counts: Sequence[int],
                       seeds: Sequence[int], *, metric: str,
                       options: Mapping[str, Any] | None = None, step: float = 0.001,
                       ) -> pd.DataFrame:
    """One row per (seed, n): the oracle ``alpha`` and its ``accuracy`` (%) on all items.
    ``items`` carry their ``scores``; ``priors`` has a ``text`` column and one
    `null_sampling_column` per seed and count."""
    alphas = alpha_grid(step)
    aggregate = headline_aggregate(items, metric, options)
    every = np.arange(len(items))
    rows = []
    for seed in seeds:
        for n in counts:
            column = null_sampling_column(seed, n)
            if column not in priors:
                raise ValueError(f"null-sampling priors: no column {column!r} "
                                 f"(seed {seed}, {n} null images)")
            prior = dict(zip(priors["text"], priors[column], strict=True))
            correct = item_correct_over_alphas(items, prior, alphas)
            alpha, accuracy = best_alpha(aggregate(correct, every), alphas)
            rows.append({"seed": int(seed), "n": int(n), "alpha": alpha,
                         "accuracy": round(100 * accuracy, 4)})
    return pd.DataFrame(rows, columns=["seed", "n", "alpha", "accuracy"])


def null_sampling_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per n (index): ``accuracy`` and ``alpha`` mean, ``accuracy_std`` and ``alpha_std``
    (population std over seeds), and ``seeds``."""
    grouped = runs.groupby("n", sort=True)
    return pd.DataFrame({
        "accuracy": grouped["accuracy"].mean(),
        "accuracy_std": grouped["accuracy"].std(ddof=0),
        "alpha": grouped["alpha"].mean(),
        "alpha_std": grouped["alpha"].std(ddof=0),
        "seeds": grouped["seed"].count(),
    })
