"""How `vlcomp.bench.gpu_check` compares a device's outputs with the CPU's: tolerances, score
differences, per-item choices and training updates (numpy only).

Scores pass when ``max |device - cpu| <= atol + rtol * scale``, ``scale`` being the largest
``|cpu|`` of the compared block (logits, log-likelihoods and cosines have very different
magnitudes; the scale makes one rule fit them all). A choice (the argmax of an item's scores)
may differ only where the CPU's margin between its top two scores is at most twice that
bound: both scores can move by it, so such an item is a near-tie, counted but not failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Tolerance:
    """``|device - cpu| <= atol + rtol * max|cpu|`` over a block of values."""

    atol: float
    rtol: float

    def bound(self, scale: float) -> float:
        return self.atol + self.rtol * scale

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rule": "max|device-cpu| <= atol + rtol * max|cpu|"}


@dataclass(frozen=True)
class TrainTolerance:
    """A training comparison: the mean training loss within ``loss_rtol`` (relative), and
    the weight update (final - initial weights) within ``update_rel`` of the CPU's
    (``||du_device - du_cpu|| / ||du_cpu||``)."""

    loss_rtol: float
    update_rel: float

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rule": "|loss_d-loss_c| <= loss_rtol*|loss_c| and "
                "||dW_d-dW_c|| <= update_rel*||dW_c||"}


# fp32 scoring (TF32 convolutions, cuDNN's default, move patch embeddings by ~1e-4 relative)
SCORES = Tolerance(atol=2e-3, rtol=1e-3)
# the logistic probe (float64, L-BFGS stopped at a gradient tolerance: the optimum to ~1e-6)
PROBE = Tolerance(atol=1e-3, rtol=1e-3)
# three AdamW steps: fp32 on both sides, or bf16 autocast (the paper runs' `amp`) on CUDA.
# Adam's first steps are close to lr * sign(gradient), so bf16 noise that flips the sign of
# a small gradient moves that weight by 2 lr: a few % of such weights give a relative update
# difference of ~0.3; 0.8 (cosine ~0.7) still fails a broken pass (cosine ~0, difference ~1.4)
TRAIN_FP32 = TrainTolerance(loss_rtol=1e-3, update_rel=0.05)
TRAIN_BF16 = TrainTolerance(loss_rtol=3e-2, update_rel=0.8)
# segments (2 steps, hand over, 1 step) against 3 straight steps on one device: deterministic
# kernels, so equal (bitwise on CPU; CUDA allowed rounding-level differences)
RESUME = TrainTolerance(loss_rtol=1e-6, update_rel=1e-4)


def compare_values(device: Any, cpu: Any, tol: Tolerance) -> dict[str, Any]:
    """Differences of two equally shaped blocks of values and whether they are within
    ``tol``; non-finite values fail."""
    d = np.asarray(device, dtype=np.float64)
    c = np.asarray(cpu, dtype=np.float64)
    if d.shape != c.shape:
        return {"passed": False, "error": f"shapes differ: device {d.shape}, cpu {c.shape}"}
    finite = bool(np.isfinite(d).all() and np.isfinite(c).all())
    diff = np.abs(d - c)
    scale = float(np.abs(c).max()) if c.size else 0.0
    max_abs = float(diff.max()) if diff.size else 0.0
    big = np.abs(c) > tol.atol
    max_rel = float((diff[big] / np.abs(c[big])).max()) if big.any() else 0.0
    bound = tol.bound(scale)
    return {"passed": finite and max_abs <= bound, "finite": finite, "values": int(c.size),
            "max_abs_diff": max_abs, "max_rel_diff": max_rel, "scale": scale,
            "allowed_abs_diff": bound, "spread": float(c.std()) if c.size else 0.0}


def compare_choices(device_items: Sequence[Any], cpu_items: Sequence[Any],
                    allowed: float) -> dict[str, Any]:
    """Per item, whether the device picks the CPU's argmax; a different pick is a near-tie
    when the CPU's top-two margin is at most ``2 * allowed`` (module docstring)."""
    agree = near_ties = 0
    disagree: list[int] = []
    for k, (d, c) in enumerate(zip(device_items, cpu_items, strict=True)):
        d, c = np.asarray(d, dtype=np.float64), np.asarray(c, dtype=np.float64)
        if int(np.argmax(d)) == int(np.argmax(c)):
            agree += 1
            continue
        top = np.sort(c)[::-1]
        margin = float(top[0] - top[1]) if len(top) > 1 else float("inf")
        if margin <= 2 * allowed:
            near_ties += 1
        else:
            disagree.append(k)
    return {"passed": not disagree, "items": len(cpu_items), "agree": agree,
            "near_ties": near_ties, "disagree": len(disagree), "disagreeing_items": disagree[:10]}


def combine(*checks: Mapping[str, Any]) -> bool:
    """Whether every check passed."""
    return all(bool(c.get("passed")) for c in checks)


def row_cosines(device: Any, cpu: Any) -> float:
    """The smallest cosine between matching rows of two embedding blocks."""
    d = np.asarray(device, dtype=np.float64)
    c = np.asarray(cpu, dtype=np.float64)
    num = (d * c).sum(axis=1)
    den = np.linalg.norm(d, axis=1) * np.linalg.norm(c, axis=1)
    return float((num / np.maximum(den, 1e-30)).min()) if len(c) else 1.0


def update_difference(device_delta: Iterable[Any], cpu_delta: Iterable[Any]) -> dict[str, float]:
    """``||du_d - du_c|| / ||du_c||``, their cosine and the largest absolute difference, over
    matching tensors of two weight updates (numpy arrays, any shapes)."""
    diff_sq = cpu_sq = dev_sq = dot = 0.0
    max_abs = 0.0
    for d, c in zip(device_delta, cpu_delta, strict=True):
        d = np.asarray(d, dtype=np.float64).ravel()
        c = np.asarray(c, dtype=np.float64).ravel()
        gap = d - c
        diff_sq += float(gap @ gap)
        cpu_sq += float(c @ c)
        dev_sq += float(d @ d)
        dot += float(d @ c)
        if gap.size:
            max_abs = max(max_abs, float(np.abs(gap).max()))
    norm = np.sqrt(cpu_sq)
    return {"update_rel_diff": float(np.sqrt(diff_sq) / norm) if norm else float(diff_sq > 0),
            "update_cosine": float(dot / np.sqrt(cpu_sq * dev_sq)) if cpu_sq and dev_sq
            else float(cpu_sq == dev_sq), "update_norm": float(norm),
            "max_abs_weight_diff": max_abs}


def compare_training(device_loss: float, cpu_loss: float, update: Mapping[str, float],
                     tol: TrainTolerance) -> dict[str, Any]:
    """A training comparison from its mean losses and `update_difference`."""
    finite = bool(np.isfinite(device_loss) and np.isfinite(cpu_loss))
    rel = abs(device_loss - cpu_loss) / max(abs(cpu_loss), 1e-12)
    passed = (finite and rel <= tol.loss_rtol and update["update_norm"] > 0
              and update["update_rel_diff"] <= tol.update_rel)
    return {"passed": passed, "finite": finite, "device_loss": float(device_loss),
            "cpu_loss": float(cpu_loss), "loss_rel_diff": float(rel), **update}
