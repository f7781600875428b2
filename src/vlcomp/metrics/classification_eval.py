"""One model's classification record on one dataset, every configured protocol at once.

The record (``results/metrics/{model}/classification_{dataset}.json``) holds, per protocol,
the full block of `vlcomp.metrics.classification` (linear probe: chosen C, sweep, fit sizes;
zero-shot: top-k entries) under ``protocols``, and the headline numbers under ``overall``
as ``{protocol}_top1`` / ``{protocol}_top5`` (percent), which ARO Table 6's rows read. The
per-image table (``image_id, label, {protocol}_pred, {protocol}_top1, {protocol}_top5``)
lets `vlcomp.metrics.classification_uncertainty` bootstrap each headline over the images.

Features are the model's image embeddings as the embedding rules write them (L2-normalised
projected features; CLIP's appendix A.3 probed the pre-projection features, see
docs/fidelity.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.benchmarks.classification_plan import PROTOCOLS
from vlcomp.metrics.classification import (
    TOPK,
    accuracy_block,
    fit_linear_probe,
    topk_correct,
    zero_shot_metrics,
)


def rows_by_id(embeddings: np.ndarray, rows: Mapping[str, int], image_ids: Sequence[str],
               where: str) -> np.ndarray:
    """The embedding rows of ``image_ids`` in their order; a missing id is a ValueError
    naming ``where`` (the embedding file)."""
    missing = [i for i in image_ids if i not in rows]
    if missing:
        raise ValueError(f"{where}: no embedding for {len(missing)} images, e.g. {missing[:3]}")
    return np.asarray(embeddings)[[rows[i] for i in image_ids]]


def _protocol_scores(protocol: str, train_x: np.ndarray, train_y: np.ndarray,
                     test_x: np.ndarray, test_y: np.ndarray, weights: np.ndarray | None,
                     probe: Mapping[str, Any], benchmark: str
                     ) -> tuple[dict[str, Any], np.ndarray]:
    """A protocol's metrics block and its class scores of the evaluation images."""
    from vlcomp.benchmarks.classification import zero_shot_scores

    if protocol == "zero_shot":
        if weights is None:
            raise ValueError(f"{benchmark}: zero_shot needs the class embeddings")
        scores = zero_shot_scores(test_x, weights)
        return zero_shot_metrics(scores, test_y, benchmark=benchmark), scores
    if protocol == "linear_probe":
        block, model = fit_linear_probe(train_x, train_y, test_x, test_y, benchmark=benchmark,
                                        **probe)
        return block, model.scores(test_x)
    raise ValueError(f"{benchmark}: unknown protocol {protocol!r}; known: {PROTOCOLS}")


def evaluate_classification(benchmark: str, protocols: Sequence[str], train_x: np.ndarray,
                            train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray,
                            test_ids: Sequence[str], *, n_classes: int,
                            weights: np.ndarray | None = None,
                            probe: Mapping[str, Any] | None = None
                            ) -> tuple[dict[str, Any], pd.DataFrame]:
    """The record and the per-image table of each protocol's predictions.

    ``probe``: keyword options of `fit_linear_probe` (``c_grid``, ``seed``,
    ``val_fraction``, ``max_iter``, ``device``); ``weights``: zero-shot class embeddings
    ``(n_classes, dim)``. Labels must be class indices below ``n_classes``.
    """
    train_y = np.asarray(train_y, dtype=np.int64)
    test_y = np.asarray(test_y, dtype=np.int64)
    if len(test_ids) != len(test_y) or len(test_x) != len(test_y) or len(train_x) != len(train_y):
        raise ValueError(f"{benchmark}: features, labels and ids differ in length")
    for name, labels in (("train", train_y), ("evaluation", test_y)):
        if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
            raise ValueError(f"{benchmark}: {name} labels outside 0..{n_classes - 1}")
    if weights is not None and len(weights) != n_classes:
        raise ValueError(f"{benchmark}: {len(weights)} class embeddings for {n_classes} "
                         "classes")
    record: dict[str, Any] = {
        "benchmark": benchmark, "metric": "classification", "protocols": {},
        "n_items": len(test_y), "n_train": len(train_y), "n_classes": n_classes,
        "chance": round(100.0 / n_classes, 4), "overall": {},
    }
    per_image = pd.DataFrame({"image_id": list(test_ids), "label": test_y})
    for protocol in protocols:
        block, scores = _protocol_scores(protocol, train_x, train_y, test_x, test_y, weights,
                                         dict(probe or {}), benchmark)
        if scores.shape[1] < n_classes:  # a probe that saw fewer classes: pad their scores
            scores = np.pad(scores, ((0, 0), (0, n_classes - scores.shape[1])),
                            constant_values=-np.inf)
        topk = accuracy_block(scores, test_y)
        record["protocols"][protocol] = block
        per_image[f"{protocol}_pred"] = scores.argmax(axis=1)
        for k in TOPK:
            if f"top{k}" in topk:
                record["overall"][f"{protocol}_top{k}"] = topk[f"top{k}"]["accuracy"]
                per_image[f"{protocol}_top{k}"] = topk_correct(scores, test_y, k)
    return record, per_image

