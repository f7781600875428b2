"""BISON Figure 8: a captioner's caption scores on the BISON items it gets right against those
it gets wrong. "For each COCO-BISON example that the model classifies correctly (or
incorrectly), we generated a caption for the *positive* image and measured the captioning
score of the generated caption" (§6); the paper finds the two distributions "nearly
identical". Per captioner and caption metric: the mean score of the generated caption of
each item's positive image over the items it predicts right, over those it predicts wrong,
their difference, and that difference in percent of the mean over all items, each with a
bootstrap interval over the items (the BISON items whose positive image has a generated
caption)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from vlcomp.metrics.benchmarks import item_correct, merge_scores
from vlcomp.metrics.uncertainty import Outcome, bootstrap_outcomes

BENCHMARK = "bison_figure8"  # its resamples' generator (`bootstrap_rng`)
COLUMNS = ["model", "metric", "value", "ci_low", "ci_high", "n"]


def positive_images(items: pd.DataFrame) -> list[str]:
    """Each BISON item's positive image id (``image_ids[label]``)."""
    return [str(ids[int(label)]) for ids, label in zip(items.image_ids, items.label,
                                                       strict=True)]


def split_by_prediction(items: pd.DataFrame, scores: Mapping[str, pd.DataFrame],
                        caption_scores: Mapping[str, Mapping[str, Mapping[str, float]]],
                        metrics: Sequence[str], *, n_resamples: int = 1000, seed: int = 0,
                        confidence: float = 0.95) -> pd.DataFrame:
    """Rows ``model, metric, value, ci_low, ci_high, n``: for each captioner (``scores``: its
    BISON scores; ``caption_scores[model][metric][image_id]``: its generated caption's score
    × 100 on that image) and each of ``metrics`` it has, ``{metric} right``, ``{metric}
    wrong``, ``{metric} right - wrong`` and ``{metric} relative difference`` (the
    difference in percent of ``{metric} all``, the mean over the items); ``n`` counts the
    items each mean is over."""
    positives = np.array(positive_images(items), dtype=object)
    rows = []
    for model, table in scores.items():
        correct = item_correct(merge_scores(items, table))
        per_metric = caption_scores.get(model, {})
        for metric in (m for m in metrics if m in per_metric):
            by_image = per_metric[metric]
            kept = np.array([p in by_image for p in positives])
            if not kept.any():
                raise ValueError(f"{model}: no BISON item's positive image has a generated "
                                 f"caption scored by {metric}")
            value = np.array([by_image[p] for p in positives[kept]], dtype=np.float64)
            right = correct[kept].astype(bool)
            outcomes = [Outcome("right", value, right, scale=1.0),
                        Outcome("wrong", value, ~right, scale=1.0),
                        Outcome("all", value, np.ones(len(value), bool), scale=1.0)]
            boot = bootstrap_outcomes({model: outcomes}, len(value), benchmark=BENCHMARK,
                                      n_resamples=n_resamples, seed=seed,
                                      confidence=confidence)
            full = {o.metric: float(o.value()[0]) for o in outcomes}
            draws = {k: boot.draws[model, k] for k in full}
            derived = {
                "right": (full["right"], draws["right"], int(right.sum())),
                "wrong": (full["wrong"], draws["wrong"], int((~right).sum())),
                "right - wrong": (full["right"] - full["wrong"],
                                  draws["right"] - draws["wrong"], len(value)),
                "relative difference": (
                    100 * (full["right"] - full["wrong"]) / full["all"],
                    100 * (draws["right"] - draws["wrong"]) / draws["all"], len(value)),
            }
            for name, (estimate, drawn, n) in derived.items():
                low, high = boot.interval(drawn)
                rows.append({"model": model, "metric": f"{metric} {name}", "value": estimate,
                             "ci_low": low, "ci_high": high, "n": n})
    return pd.DataFrame(rows, columns=COLUMNS)
