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
    scores = np.asarray(image_features, dtype=np.float32) @ np.asarray(text_features).T
    return retrieval_hits_from_scores(scores, scores.T, text_image, ks)


def retrieval_hits_from_scores(
    i2t_scores: np.ndarray,
    t2i_scores: np.ndarray,
    text_image: Sequence[int],
    ks: Sequence[int] = KS,
) -> dict[str, np.ndarray]:
    """`retrieval_hits` of two score matrices, one per direction: ``i2t_scores`` images ×
    texts, ``t2i_scores`` texts × images (the transpose of one matrix for a dual encoder;
    BLIP's re-ranking has one each, `vlcomp.metrics.rerank`)."""
    text_image = np.asarray(text_image, dtype=np.int64)
    n_img, n_txt = i2t_scores.shape
    if t2i_scores.shape != (n_txt, n_img):
        raise ValueError(f"t2i scores {t2i_scores.shape} do not match i2t {i2t_scores.shape}")
    if len(text_image) != n_txt:
        raise ValueError(f"{len(text_image)} text→image links for {n_txt} texts")
    if n_txt and (text_image.min() < 0 or text_image.max() >= n_img):
        raise ValueError(f"text→image links must lie in 0..{n_img - 1}")
    has_text = np.bincount(text_image, minlength=n_img) > 0
    if not has_text.all():
        raise ValueError(f"{int((~has_text).sum())} gallery images have no text")
    i2t = rank_scores(i2t_scores, np.arange(n_img), text_image, k=max(ks))
    t2i = rank_scores(t2i_scores, text_image, np.arange(n_img), k=max(ks))
    return {f"{name}_r{k}": np.asarray(hit_rate_at_k(ranking, k), dtype=bool)
            for name, ranking in (("i2t", i2t), ("t2i", t2i)) for k in ks}


def hits_summary(hits: dict[str, np.ndarray], n_images: int, n_texts: int) -> dict[str, Any]:
    """R@K both ways (percent) from per-item hits, the record `retrieval_metrics` returns."""
    overall = {name: round(float(h.mean() * 100), 4) for name, h in hits.items()}
    return {"metric": "retrieval", "tie_policy": "strict", "n_images": n_images,
            "n_texts": n_texts, "overall": overall}


def retrieval_metrics(
    image_features: np.ndarray,
    text_features: np.ndarray,
    text_image: Sequence[int],
    ks: Sequence[int] = KS,
) -> dict[str, Any]:
    """R@K both ways (percent) for L2-normalised features (`retrieval_hits`)."""
    hits = retrieval_hits(image_features, text_features, text_image, ks)
    return hits_summary(hits, len(image_features), len(text_features))
