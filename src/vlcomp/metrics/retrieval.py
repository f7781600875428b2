"""Recall@K for image→text and text→image retrieval over a whole gallery."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vlcomp.metrics.ranking import hit_rate_at_k, rank_scores

KS = (1, 5, 10)


def retrieval_hits(
    image_features: np.ndarray,
    text_features: np.ndarray,
    text_image: Sequence[int],
    ks: Sequence[int] = KS,
) -> dict[str, np.ndarray]:
    """Per-item hits for L2-normalised features: ``i2t_r{k}`` per gallery image (any of its
    texts within the top K), ``t2i_r{k}`` per text (its image within the top K); ties with a
    wrong candidate count as misses. ``text_image[t]`` is the gallery row of text ``t``."""
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
    return {f"{name}_r{k}": np.asarray(hit_rate_at_k(ranking, k), dtype=bool)
            for name, ranking in (("i2t", i2t), ("t2i", t2i)) for k in ks}


def retrieval_metrics(
    image_features: np.ndarray,
    text_features: np.ndarray,
    text_image: Sequence[int],
    ks: Sequence[int] = KS,
) -> dict[str, Any]:
    """R@K both ways (percent) for L2-normalised features (`retrieval_hits`)."""
    hits = retrieval_hits(image_features, text_features, text_image, ks)
    overall = {name: round(float(h.mean() * 100), 4) for name, h in hits.items()}
    return {"metric": "retrieval", "tie_policy": "strict", "n_images": len(image_features),
            "n_texts": len(text_features), "overall": overall}
