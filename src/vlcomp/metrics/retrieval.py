"""Recall@K for image→text and text→image retrieval over a whole gallery."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vlcomp.metrics.ranking import hit_rate_at_k, rank_scores

KS = (1, 5, 10)


def retrieval_metrics(
    image_features: np.ndarray,
    text_features: np.ndarray,
    text_image: Sequence[int],
    ks: Sequence[int] = KS,
) -> dict[str, Any]:
    """R@K both ways (percent) for L2-normalised features; ``text_image[t]`` is the gallery
    row that text ``t`` describes. An image is retrieved correctly (i2t) when any of its
    texts is within the top K; ties with a wrong candidate count as misses."""
    text_image = np.asarray(text_image, dtype=np.int64)
    n_img, n_txt = len(image_features), len(text_features)
    if len(text_image) != n_txt:
        raise ValueError(f"{len(text_image)} text→image links for {n_txt} texts")
    if n_txt and (text_image.min() < 0 or text_image.max() >= n_img):
        raise ValueError(f"text→image links must lie in 0..{n_img - 1}")
    has_text = np.bincount(text_image, minlength=n_img) > 0
    if not has_text.all():
        raise ValueError(f"{int((~has_text).sum())} gallery images have no text")
    scores = np.asarray(image_features, dtype=np.float32) @ np.asarray(text_features).T
    i2t = rank_scores(scores, np.arange(n_img), text_image, k=max(ks))
    t2i = rank_scores(scores.T, text_image, np.arange(n_img), k=max(ks))
    overall: dict[str, float] = {}
    for name, ranking in (("i2t", i2t), ("t2i", t2i)):
        for k in ks:
            overall[f"{name}_r{k}"] = round(float(hit_rate_at_k(ranking, k).mean() * 100), 4)
    return {"metric": "retrieval", "tie_policy": "strict", "n_images": n_img,
            "n_texts": n_txt, "overall": overall}
