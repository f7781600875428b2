"""Classification metrics: top-k accuracy, zero-shot results, and CLIP's linear probe.

Linear probe (CLIP, Radford et al. 2021, §3.2 and appendix A.3; ARO Table 6 follows "the
same protocol as in the original CLIP paper", ARO issue #18): a multinomial L2 logistic
regression (`vlcomp.metrics.logistic`, scikit-learn's L-BFGS objective, at most 1,000
iterations) on frozen image features. Its inverse regularisation C is chosen on a validation
split held out of train (CIFAR and ImageNet have none with public labels besides the test
split): a parametric binary search over ``CLIP_C_GRID`` (10^-6 .. 10^6, 8 steps per decade)
that starts at every second decade and halves the interval around the peak until it is one
step wide. The probe is then refitted with that C on train + validation and scored on test.
Percentages are rounded to ``DECIMALS`` places as in `vlcomp.metrics.benchmarks`.

Stopping: L-BFGS stops when the largest gradient component falls below ``tol``. scikit-learn
< 1.4 (CLIP's, 2021) minimised the summed loss, >= 1.4 (PR #26721) the mean loss: the same
minimiser, but a gradient n times smaller, so the same ``tol`` stops n times earlier. On
L2-normalised features with 1,000 classes the mean form's 1e-4 is met at the start (zero
weights: chance accuracy). ``loss_scale="sum"`` divides ``tol`` by each fit's row count,
which stops where the summed form stops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vlcomp.metrics.benchmarks import DECIMALS, accuracy_entry, percent
from vlcomp.seeding import stable_rng

if TYPE_CHECKING:
    from vlcomp.metrics.logistic import LogisticModel

CLIP_C_GRID = tuple(float(c) for c in np.logspace(-6, 6, 97))  # 12 decades x 8 steps
VAL_FRACTION = 0.1
START_POINTS = 7  # the search starts at 10^-6, 10^-4, ..., 10^6
TOPK = (1, 5)

Metrics = dict[str, Any]


def topk_correct(scores: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """Whether each row's true class is among its ``k`` best scores; ties are ranked by
    class index (the lower index first), so top-1 agrees with ``argmax``."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    if scores.ndim != 2 or labels.shape != (len(scores),):
        raise ValueError(f"scores {scores.shape} and labels {labels.shape} do not match")
    if labels.size and (labels.min() < 0 or labels.max() >= scores.shape[1]):
        raise ValueError(f"labels must be in 0..{scores.shape[1] - 1}")
    true = scores[np.arange(len(labels)), labels][:, None]
    before = np.arange(scores.shape[1])[None, :] < labels[:, None]
    rank = (scores > true).sum(axis=1) + ((scores == true) & before).sum(axis=1)
    return rank < k


def topk_accuracy(scores: np.ndarray, labels: np.ndarray, k: int = 1) -> float | None:
    """Top-``k`` accuracy in percent (``DECIMALS`` places; None without rows)."""
    correct = topk_correct(scores, labels, k)
    return percent(correct.mean()) if correct.size else None


def accuracy_block(scores: np.ndarray, labels: np.ndarray, ks: Sequence[int] = TOPK
                   ) -> Metrics:
    """``{"top1": {"accuracy", "correct", "n"}, "top5": ...}`` for the ``ks`` that are
    smaller than the number of classes (top-1 always)."""
    n_classes = np.asarray(scores).shape[1]
    return {f"top{k}": accuracy_entry(topk_correct(scores, labels, k))
            for k in ks if k == 1 or k < n_classes}


def zero_shot_metrics(scores: np.ndarray, labels: np.ndarray, *, benchmark: str | None = None,
                      options: Metrics | None = None) -> Metrics:
    """Zero-shot classification metrics; ``overall`` is top-1 accuracy in percent."""
    block = accuracy_block(scores, labels)
    return {"benchmark": benchmark, "metric": "top1_accuracy", "protocol": "zero_shot",
            "n_items": len(labels), "options": options or {},
            "overall": block["top1"]["accuracy"], **block}


def split_train_val(labels: np.ndarray, val_fraction: float, seed: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (sorted) of a stratified train / validation split: per class,
    ``round(val_fraction * n_class)`` rows chosen by a generator seeded from ``seed``."""
    if not 0 < val_fraction < 1:
        raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
    labels = np.asarray(labels)
    rng = stable_rng("linear-probe-split", seed)
    val = []
    for cls in np.unique(labels):
        rows = np.flatnonzero(labels == cls)
        n_val = round(val_fraction * len(rows))
        val.extend(rng.permutation(rows)[:n_val].tolist())
    if not val:
        raise ValueError(f"val_fraction {val_fraction} leaves no validation rows")
    val_idx = np.sort(np.asarray(val, dtype=np.int64))
    return np.setdiff1d(np.arange(len(labels)), val_idx), val_idx


def search_c(evaluate: Callable[[float], float], grid: Sequence[float] = CLIP_C_GRID
             ) -> tuple[float, dict[float, float]]:
    """CLIP's parametric binary search: ``evaluate(C)`` (validation accuracy) at
    ``START_POINTS`` evenly spaced grid points, then at the peak's neighbours half as far,
    a quarter as far, ... down to one grid step. Returns the best C and every evaluation.

    A tie goes to the smaller C (stronger regularisation), so the choice is deterministic.
    """
    grid = sorted(float(c) for c in grid)
    if not grid or grid[0] <= 0 or len(set(grid)) != len(grid):
        raise ValueError("the C grid needs distinct positive values")
    seen: dict[int, float] = {}

    def best(indices: Sequence[int]) -> int:
        for i in indices:
            if i not in seen:
                seen[i] = float(evaluate(grid[i]))
        return max(sorted(set(indices)), key=lambda i: (seen[i], -i))

    step = max(1, (len(grid) - 1) // (START_POINTS - 1))
    peak = best(range(0, len(grid), step))
    step //= 2
    while step >= 1:
        peak = best([max(peak - step, 0), peak, min(peak + step, len(grid) - 1)])
        step //= 2
    return grid[peak], {grid[i]: seen[i] for i in sorted(seen)}


def linear_probe(train_features: np.ndarray, train_labels: np.ndarray,
                 test_features: np.ndarray, test_labels: np.ndarray, *,
                 c_grid: Sequence[float] = CLIP_C_GRID, seed: int = 0,
                 val_fraction: float = VAL_FRACTION, max_iter: int = 1000, tol: float = 1e-4,
                 loss_scale: str = "mean", device: str = "cpu", benchmark: str | None = None
                 ) -> Metrics:
    """CLIP's linear probe: choose C on a stratified validation split of train
    (`split_train_val`, `search_c`), refit on all of train with it, score test.

    ``overall`` is the test top-1 accuracy in percent; ``c`` the chosen C; ``sweep`` maps
    each C tried to its validation accuracy (percent) of a probe fitted on the ``n_fit``
    remaining train rows; the final probe sees all ``n_train``. ``n_classes`` is
    ``max(train, test labels) + 1``.
    """
    return fit_linear_probe(train_features, train_labels, test_features, test_labels,
                            c_grid=c_grid, seed=seed, val_fraction=val_fraction,
                            max_iter=max_iter, tol=tol, loss_scale=loss_scale, device=device,
                            benchmark=benchmark)[0]


def fit_linear_probe(train_features: np.ndarray, train_labels: np.ndarray,
                     test_features: np.ndarray, test_labels: np.ndarray, *,
                     c_grid: Sequence[float] = CLIP_C_GRID, seed: int = 0,
                     val_fraction: float = VAL_FRACTION, max_iter: int = 1000,
                     tol: float = 1e-4, loss_scale: str = "mean", device: str = "cpu",
                     benchmark: str | None = None) -> tuple[Metrics, LogisticModel]:
    """`linear_probe`'s metrics and its final probe (fitted on all of train with the chosen
    C), whose ``scores`` give each test image's class scores. ``loss_scale``: ``mean`` (the
    gradient tolerance ``tol`` applies to the mean loss, scikit-learn >= 1.4) or ``sum``
    (to the summed loss, scikit-learn < 1.4 as CLIP ran it; see the module docstring)."""
    if loss_scale not in ("mean", "sum"):
        raise ValueError(f"loss_scale must be 'mean' or 'sum', got {loss_scale!r}")
    from vlcomp.metrics.logistic import fit_logistic

    train_x = np.asarray(train_features, dtype=np.float64)
    train_y = np.asarray(train_labels, dtype=np.int64)
    test_x = np.asarray(test_features, dtype=np.float64)
    test_y = np.asarray(test_labels, dtype=np.int64)
    if train_x.ndim != 2 or test_x.ndim != 2 or train_x.shape[1] != test_x.shape[1]:
        raise ValueError(f"train features {train_x.shape} and test features {test_x.shape} "
                         "need the same dimension")
    n_classes = int(max(train_y.max(), test_y.max())) + 1
    fit_idx, val_idx = split_train_val(train_y, val_fraction, seed)

    def fit(x: np.ndarray, y: np.ndarray, c: float):
        scaled = tol / len(y) if loss_scale == "sum" else tol
        return fit_logistic(x, y, c=c, n_classes=n_classes, max_iter=max_iter, tol=scaled,
                            device=device)

    def val_accuracy(c: float) -> float:
        model = fit(train_x[fit_idx], train_y[fit_idx], c)
        return float(topk_correct(model.scores(train_x[val_idx]), train_y[val_idx], 1).mean())

    best_c, sweep = search_c(val_accuracy, c_grid)
    final = fit(train_x, train_y, best_c)
    block = accuracy_block(final.scores(test_x), test_y)
    metrics = {
        "benchmark": benchmark, "metric": "top1_accuracy", "protocol": "linear_probe",
        "n_items": len(test_y), "overall": block["top1"]["accuracy"], **block,
        "c": best_c, "sweep": {f"{c:.6g}": percent(acc) for c, acc in sweep.items()},
        "n_train": len(train_y), "n_fit": len(fit_idx), "n_val": len(val_idx),
        "n_classes": n_classes,
        "converged": final.converged, "n_iter": final.n_iter,
        "options": {"seed": seed, "val_fraction": val_fraction, "max_iter": max_iter,
                    "tol": tol, "loss_scale": loss_scale,
                    "grid": [min(c_grid), max(c_grid), len(c_grid)],
                    "solver": "multinomial logistic regression, L-BFGS (scipy), mean loss",
                    "decimals": DECIMALS},
    }
    return metrics, final
