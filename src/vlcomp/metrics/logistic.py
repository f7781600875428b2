"""Multinomial L2-regularised logistic regression fitted by L-BFGS (CLIP's linear probe).

The objective is scikit-learn's ``LogisticRegression(penalty="l2", C=c, solver="lbfgs")``
for more than two classes (multinomial, intercept fitted and not penalised), in its mean
form (scikit-learn >= 1.4, PR #26721; earlier versions summed the loss, the same minimiser)::

    (1/n) sum_i [logsumexp(z_i) - z_i[y_i]] + ||W||^2 / (2 c n),   z_i = W x_i + b

minimised from zero by ``scipy.optimize.minimize(method="L-BFGS-B")`` with scikit-learn's
options (``maxiter=max_iter``, ``gtol=tol``, ``ftol=64 * eps``, ``maxls=50``). The loss and
its gradient are computed with torch in float64, in row chunks (bounded memory), on
``device`` ("cpu", or "cuda" for ImageNet-sized problems); scipy drives the iterations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import minimize

MAX_ITER = 1000
TOL = 1e-4
CHUNK = 65_536


@dataclass(frozen=True)
class LogisticModel:
    """A fitted probe: ``coef`` ``(n_classes, dim)``, ``intercept`` ``(n_classes,)``."""

    coef: np.ndarray
    intercept: np.ndarray
    c: float
    n_iter: int
    converged: bool

    def scores(self, features: np.ndarray) -> np.ndarray:
        """Logits ``(n, n_classes)`` of ``features``."""
        return np.asarray(features, dtype=np.float64) @ self.coef.T + self.intercept


def _check(features: np.ndarray, labels: np.ndarray, n_classes: int) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels)
    if x.ndim != 2 or y.shape != (len(x),) or not len(x):
        raise ValueError(f"features {x.shape} and labels {y.shape} do not match")
    if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels must be integers in 0..{n_classes - 1}")
    if not np.isfinite(x).all():
        raise ValueError("features hold NaN or infinite values")
    return x, y.astype(np.int64)


def fit_logistic(features: np.ndarray, labels: np.ndarray, *, c: float, n_classes: int,
                 max_iter: int = MAX_ITER, tol: float = TOL, device: str = "cpu",
                 chunk: int = CHUNK) -> LogisticModel:
    """Fit the multinomial probe with inverse regularisation ``c`` (deterministic: no
    randomness; the start is zero)."""
    if not c > 0:
        raise ValueError(f"C must be positive, got {c}")
    x_np, y_np = _check(features, labels, n_classes)
    n, dim = x_np.shape
    x = torch.from_numpy(x_np).to(device)
    y = torch.from_numpy(y_np).to(device)
    penalty = 1.0 / (c * n)

    def loss_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
        params = torch.from_numpy(theta.reshape(n_classes, dim + 1)).to(device)
        w, b = params[:, :dim], params[:, dim]
        loss = torch.zeros((), dtype=torch.float64, device=device)
        grad_w = torch.zeros_like(w)
        grad_b = torch.zeros_like(b)
        for start in range(0, n, chunk):
            xs, ys = x[start:start + chunk], y[start:start + chunk]
            z = xs @ w.T + b
            log_norm = torch.logsumexp(z, dim=1)
            loss += (log_norm - z.gather(1, ys[:, None]).squeeze(1)).sum()
            dz = torch.exp(z - log_norm[:, None])
            dz[torch.arange(len(ys), device=device), ys] -= 1.0
            grad_w += dz.T @ xs
            grad_b += dz.sum(dim=0)
        value = loss / n + 0.5 * penalty * (w * w).sum()
        grad = torch.cat([grad_w / n + penalty * w, (grad_b / n)[:, None]], dim=1)
        return float(value), grad.cpu().numpy().ravel()

    result = minimize(loss_grad, np.zeros(n_classes * (dim + 1)), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iter, "gtol": tol,
                               "ftol": 64 * np.finfo(float).eps, "maxls": 50})
    params = result.x.reshape(n_classes, dim + 1)
    return LogisticModel(coef=params[:, :dim].copy(), intercept=params[:, dim].copy(), c=c,
                         n_iter=int(result.nit), converged=bool(result.success))
