"""VisualGPTScore appendix Table 5: a captioner's text score on a 2 × 2 pair benchmark at
the test-set oracle α*, with P(t) from n Gaussian null images or from n sampled training
images, per sampling seed (`vlcomp.score.text_prior.null_sampling_priors` and
`train_sampling_priors`, one `null_sampling_column` each), and the mean and std over seeds.

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

SOURCES = ("null", "train")  # Gaussian null images; sampled training images (the paper: LAION)


def null_sampling_column(seed: int, n: int, source: str = "null") -> str:
    """The prior column of one draw (``seed``), count (``n``) and image source in a
    null-sampling table (`vlcomp.score.text_prior` writes them)."""
    if source not in SOURCES:
        raise ValueError(f"prior image source {source!r}: one of {SOURCES}")
    return f"log_prior_s{seed}_n{n}" if source == "null" else f"log_prior_train_s{seed}_n{n}"


def null_sampling_runs(items: pd.DataFrame, priors: pd.DataFrame, counts: Sequence[int],
                       seeds: Sequence[int], *, metric: str,
                       options: Mapping[str, Any] | None = None, step: float = 0.001,
                       sources: Sequence[str] = ("null",)) -> pd.DataFrame:
    """One row per (source, seed, n): the oracle ``alpha`` and its ``accuracy`` (%) on all
    items. ``items`` carry their ``scores``; ``priors`` has a ``text`` column and one
    `null_sampling_column` per source, seed and count."""
    alphas = alpha_grid(step)
    aggregate = headline_aggregate(items, metric, options)
    every = np.arange(len(items))
    rows = []
    for source in sources:
        for seed in seeds:
            for n in counts:
                column = null_sampling_column(seed, n, source)
                if column not in priors:
                    raise ValueError(f"null-sampling priors: no column {column!r} "
                                     f"(seed {seed}, {n} {source} images)")
                prior = dict(zip(priors["text"], priors[column], strict=True))
                correct = item_correct_over_alphas(items, prior, alphas)
                alpha, accuracy = best_alpha(aggregate(correct, every), alphas)
                rows.append({"source": source, "seed": int(seed), "n": int(n),
                             "alpha": alpha, "accuracy": round(100 * accuracy, 4)})
    return pd.DataFrame(rows, columns=["source", "seed", "n", "alpha", "accuracy"])


def null_sampling_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (source, n) (index): ``accuracy`` and ``alpha`` mean, ``accuracy_std`` and
    ``alpha_std`` (population std over seeds), and ``seeds``."""
    grouped = runs.groupby(["source", "n"], sort=True)
    return pd.DataFrame({
        "accuracy": grouped["accuracy"].mean(),
        "accuracy_std": grouped["accuracy"].std(ddof=0),
        "alpha": grouped["alpha"].mean(),
        "alpha_std": grouped["alpha"].std(ddof=0),
        "seeds": grouped["seed"].count(),
    })


def null_against_train(runs: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Rows ``model, metric, value, ci_low, ci_high, n`` per model and count n that both
    sources ran: ``null - train n={n}``, the mean over seeds of the null prior's text score
    less the training images' (the k-th null draw against the k-th training draw), with a t
    interval over those per-seed differences (``n``: seeds); and each source's ``std`` over
    seeds (``null std n={n}``, ``train std n={n}``; population std, no interval)."""
    from scipy import stats

    rows = []
    for model, runs_m in runs.groupby("model", sort=False):
        for n in sorted(set(runs_m.n)):
            null = runs_m[(runs_m.source == "null") & (runs_m.n == n)].sort_values("seed")
            train = runs_m[(runs_m.source == "train") & (runs_m.n == n)].sort_values("seed")
            if null.empty or train.empty:
                continue
            if list(null.seed) != list(train.seed):
                raise ValueError(f"{model} n={n}: null seeds {list(null.seed)} and training "
                                 f"seeds {list(train.seed)} differ")
            diff = null.accuracy.to_numpy() - train.accuracy.to_numpy()
            mean = float(diff.mean())
            if len(diff) > 1:
                half = float(stats.t.ppf(0.5 + confidence / 2, len(diff) - 1)
                             * diff.std(ddof=1) / np.sqrt(len(diff)))
            else:
                half = float("nan")
            rows.append({"model": model, "metric": f"null - train n={n}", "value": mean,
                         "ci_low": mean - half, "ci_high": mean + half, "n": len(diff)})
            for source, part in (("null", null), ("train", train)):
                std = float(part.accuracy.std(ddof=0))
                rows.append({"model": model, "metric": f"{source} std n={n}", "value": std,
                             "ci_low": std, "ci_high": std, "n": len(part)})
    return pd.DataFrame(rows, columns=["model", "metric", "value", "ci_low", "ci_high", "n"])
