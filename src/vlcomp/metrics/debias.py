"""α-debiasing of generative image–text scores (VisualGPTScore; Lin et al., Eq. 6 and 12).

A generative score log P(t | i) carries the language prior P(t): fluent but wrong captions
win. Dividing by P(t)^α removes some of it:

    score_α(i, t) = log P(t | i) − α · log P(t),   α ∈ [0, 1]

α = 0 is the raw score and α = 1 the pointwise mutual information. For a fixed text the
subtracted term is the same for every image, so text→image rankings do not depend on α; only
image→text choices do. P(t) is estimated by Monte Carlo, P(t) ≈ mean_k P(t | i_k) over n
images (Gaussian "null" images or sampled training images): an average of probabilities,
taken in log space with `log_mean_exp`.

α* is chosen on a grid of step 0.001 (`alpha_grid`), the smallest α among those with the best
accuracy. `validation_alpha` picks it on a random half of the items and reports on the other
half, over repeated seeded splits (the paper's protocol for Winoground and EqBen; mean ± std
over 10 repeats); `best_alpha` on all items gives the oracle column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vlcomp.seeding import stable_rng

ALPHA_STEP = 0.001
TIE_POLICIES = ("strict", "lenient")

# accuracy per α of the items `rows` given their correctness (len(rows), n_alphas)
Aggregate = Callable[[np.ndarray, np.ndarray], np.ndarray]


def alpha_grid(step: float = ALPHA_STEP) -> np.ndarray:
    """α values 0, step, …, 1 (1001 for the default step), rounded to the step's decimals."""
    n = round(1 / step)
    if n < 1 or abs(n * step - 1) > 1e-9:
        raise ValueError(f"alpha step {step} must divide 1")
    return np.round(np.arange(n + 1) * step, 9)


def log_mean_exp(log_values: np.ndarray, axis: int = -1) -> np.ndarray:
    """log(mean(exp(x))) along ``axis``, computed stably (the Monte Carlo log P(t))."""
    x = np.asarray(log_values, dtype=np.float64)
    if x.shape[axis] == 0:
        raise ValueError("log_mean_exp of no values")
    top = np.max(x, axis=axis, keepdims=True)
    out = top + np.log(np.mean(np.exp(x - top), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis)


def debias(log_p_text_given_image: np.ndarray, log_p_text: np.ndarray,
           alpha: float) -> np.ndarray:
    """score_α = log P(t|i) − α log P(t); the prior broadcasts over the last (text) axis."""
    return np.asarray(log_p_text_given_image, np.float64) - alpha * np.asarray(log_p_text,
                                                                              np.float64)


def choice_correct_over_alphas(
    scores: np.ndarray, log_prior: np.ndarray, alphas: np.ndarray,
    tie_policy: str = "strict", chunk: int = 2048,
) -> np.ndarray:
    """Image→text choice items, correct option in column 0: whether option 0 beats every
    other option under score_α, for each item and α. ``scores`` and ``log_prior`` are
    (n_items, n_options); returns bool (n_items, n_alphas). Strict: ties count as wrong
    (SugarCrepe, BiVLC); lenient: as right (ARO's Order)."""
    if tie_policy not in TIE_POLICIES:
        raise ValueError(f"tie policy {tie_policy!r}: one of {TIE_POLICIES}")
    scores = np.asarray(scores, np.float64)
    prior = np.asarray(log_prior, np.float64)
    if scores.ndim != 2 or scores.shape != prior.shape or scores.shape[1] < 2:
        raise ValueError(f"scores {scores.shape} and prior {prior.shape}: need equal "
                         "(n_items, n_options >= 2)")
    alphas = np.asarray(alphas, np.float64)
    out = np.empty((len(scores), len(alphas)), dtype=bool)
    for s in range(0, len(scores), chunk):
        # score_α of option 0 minus option j, for every α: (S0 − Sj) − α (P0 − Pj)
        gap = (scores[s : s + chunk, :1] - scores[s : s + chunk, 1:])[..., None]
        prior_gap = (prior[s : s + chunk, :1] - prior[s : s + chunk, 1:])[..., None]
        margin = gap - alphas * prior_gap
        out[s : s + chunk] = (margin > 0 if tie_policy == "strict" else margin >= 0).all(axis=1)
    return out


def mean_accuracy(correct: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The default `Aggregate`: the fraction of correct items per α."""
    return correct.mean(axis=0)


def best_alpha(accuracy: np.ndarray, alphas: np.ndarray) -> tuple[float, float]:
    """(α*, accuracy at α*): the smallest α with the highest accuracy."""
    k = int(np.argmax(np.asarray(accuracy)))  # first maximum = smallest α
    return float(alphas[k]), float(accuracy[k])


def validation_alpha(
    correct: np.ndarray, alphas: np.ndarray, *, seed: int, repeats: int = 10,
    aggregate: Aggregate = mean_accuracy,
) -> dict[str, Any]:
    """α* chosen on a random half of the items, reported on the other half, ``repeats``
    times (splits seeded from ``seed`` and the repeat number). ``correct`` is bool
    (n_items, n_alphas). Returns per-repeat records and the mean ± std (population) of α*
    and of the held-out accuracy at α*, α = 0 and α = 1."""
    correct = np.asarray(correct, dtype=bool)
    n = len(correct)
    if n < 2:
        raise ValueError(f"{n} items: a validation split needs at least 2")
    zero, one = int(np.argmin(np.abs(alphas))), int(np.argmin(np.abs(alphas - 1)))
    records = []
    for r in range(repeats):
        order = stable_rng("alpha-validation", seed, r).permutation(n)
        val, test = np.sort(order[: n // 2]), np.sort(order[n // 2 :])
        alpha, val_acc = best_alpha(aggregate(correct[val], val), alphas)
        k = int(np.searchsorted(alphas, alpha))
        test_acc = aggregate(correct[test], test)
        records.append({"repeat": r, "alpha": alpha, "val_accuracy": val_acc,
                        "test_accuracy": float(test_acc[k]),
                        "test_accuracy_alpha0": float(test_acc[zero]),
                        "test_accuracy_alpha1": float(test_acc[one])})
    summary = {}
    for key in ("alpha", "test_accuracy", "test_accuracy_alpha0", "test_accuracy_alpha1"):
        values = np.array([rec[key] for rec in records])
        summary[key] = {"mean": float(values.mean()), "std": float(values.std())}
    return {"repeats": records, "summary": summary, "seed": seed, "n_items": n}
