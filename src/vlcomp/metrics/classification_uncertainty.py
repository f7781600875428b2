"""Classification headlines as per-image outcomes, for bootstrap intervals over images.

A per-image table of `vlcomp.metrics.classification_eval` has a 0/1 column per headline
(``{protocol}_top{k}``); each becomes an `Outcome` named ``{protocol} top{k}`` (e.g.
``linear_probe top1``, the metric ARO Table 6's rows find their intervals by). Kept apart
from the probe so the uncertainty job needs no torch.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from vlcomp.benchmarks.classification_plan import PROTOCOLS
from vlcomp.metrics.uncertainty import Outcome


def classification_outcomes(per_image: pd.DataFrame) -> list[Outcome]:
    """Every headline of a per-image table as 0/1 outcomes over the evaluation images
    (metric ``{protocol} top{k}``, e.g. ``linear_probe top1``)."""
    everyone = np.ones(len(per_image), dtype=bool)
    out = []
    for column in per_image.columns:
        protocol, _, topk = column.rpartition("_")
        if protocol in PROTOCOLS and topk.startswith("top"):
            out.append(Outcome(f"{protocol} {topk}", per_image[column].to_numpy(np.float64),
                               everyone))
    return out


def aligned_outcomes(tables: Mapping[str, pd.DataFrame]) -> tuple[dict[str, list[Outcome]],
                                                                   int]:
    """Each model's `classification_outcomes` and the number of images, after checking that
    every per-image table lists the same images in the same order (a resample must draw the
    same images for every model) with the same metrics."""
    if not tables:
        raise ValueError("no per-image classification tables")
    (first, reference), *rest = tables.items()
    outcomes = {first: classification_outcomes(reference)}
    metrics = [o.metric for o in outcomes[first]]
    for model, table in rest:
        if table.image_id.tolist() != reference.image_id.tolist():
            raise ValueError(f"{model}: its evaluation images differ from {first}'s")
        outcomes[model] = classification_outcomes(table)
        if [o.metric for o in outcomes[model]] != metrics:
            raise ValueError(f"{model}: metrics {[o.metric for o in outcomes[model]]} differ "
                             f"from {first}'s {metrics}")
    return outcomes, len(reference)
