"""The logistic-probe stage of `vlcomp.bench.gpu_check`: CLIP's linear probe
(`vlcomp.metrics.classification.fit_linear_probe`, whose L-BFGS loss and gradient run on
``device``) on random class-structured features, on the device and on the CPU; and the
time of an L-BFGS iteration at an ImageNet-like width on the device."""

from __future__ import annotations

from typing import Any

import numpy as np

from vlcomp.bench.gpu_compare import PROBE, compare_choices, compare_values
from vlcomp.bench.gpu_timing import guarded, peak_mb, reset_peak, timed

C_GRID = (0.01, 0.1, 1.0)  # C <= 1: tens of L-BFGS iterations, not hundreds


def features(n: int, dim: int, classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """L2-normalised features around one random centre per class (the same centres for
    every ``seed``), and their labels."""
    centres = np.random.default_rng(0).normal(size=(classes, dim))
    rng = np.random.default_rng(seed + 1)
    labels = np.arange(n) % classes
    x = centres[labels] + 5.0 * rng.normal(size=(n, dim))  # overlapping: C = 0.1 wins
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32), labels


def _probe(device: str, train: tuple, test: tuple) -> tuple[dict[str, Any], Any]:
    from vlcomp.metrics.classification import fit_linear_probe

    return fit_linear_probe(*train, *test, c_grid=C_GRID, seed=0, max_iter=1000, tol=1e-4,
                            loss_scale="sum", device=device)


def check_probe(device: str) -> dict[str, Any]:
    """The probe's chosen C, test logits and test predictions, device against CPU."""
    train = features(400, 32, 5, seed=0)
    test = features(200, 32, 5, seed=1)
    record: dict[str, Any] = {"stage": "probe", "model": "linear_probe", "family": "logistic",
                              "kind": "fit_linear_probe", "passed": True}
    with guarded(record):
        (dev_metrics, dev_fit), record["device_s"] = timed(lambda: _probe(device, train, test),
                                                           device)
        if device == "cpu":  # its own reference, as the scoring stages
            (cpu_metrics, cpu_fit), record["cpu_s"] = (dev_metrics, dev_fit), record["device_s"]
        else:
            (cpu_metrics, cpu_fit), record["cpu_s"] = timed(
                lambda: _probe("cpu", train, test), "cpu")
        d_scores, c_scores = dev_fit.scores(test[0]), cpu_fit.scores(test[0])
        values = compare_values(d_scores, c_scores, PROBE)
        choices = compare_choices(list(d_scores), list(c_scores), values["allowed_abs_diff"])
        same_c = dev_metrics["c"] == cpu_metrics["c"]
        record.update(values, choices=choices, same_c=same_c, c=cpu_metrics["c"],
                      accuracy={"device": dev_metrics["overall"], "cpu": cpu_metrics["overall"]},
                      tolerance=PROBE.as_dict(),
                      passed=values["passed"] and choices["passed"] and same_c)
    return record


def probe_throughput(device: str, rows: int, dim: int, classes: int,
                     iterations: int = 10) -> dict[str, Any]:
    """Seconds per L-BFGS iteration of `fit_logistic` on ``rows`` x ``dim`` features and
    ``classes`` classes (ImageNet's probe: 1.28M x 512, 1,000 classes)."""
    from vlcomp.metrics.logistic import fit_logistic

    row: dict[str, Any] = {"model": "linear_probe", "family": "logistic", "depth": "full",
                           "scale": "base", "device": device, "stage": "probe",
                           "kind": "probe_iteration", "cost_kinds": [], "passed": True,
                           "batch_size": rows, "classes": classes, "dim": dim}
    with guarded(row):
        x, y = features(rows, dim, classes, seed=2)
        fit_logistic(x[:1000], y[:1000] % classes, c=1.0, n_classes=classes, max_iter=2,
                     device=device)
        reset_peak(device)
        fit, seconds = timed(lambda: fit_logistic(x, y, c=1.0, n_classes=classes,
                                                  max_iter=iterations, tol=0.0,
                                                  device=device), device)
        done = max(fit.n_iter, 1)
        row.update(items=rows * done, seconds=round(seconds, 3),
                   items_per_s=round(rows * done / seconds, 1),
                   seconds_per_item=seconds / (rows * done), seconds_per_iteration=seconds / done,
                   iterations=done, peak_gpu_mb=peak_mb(device))
    return row
