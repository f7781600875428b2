"""Retrieval with a generative score (VisualGPTScore Table 4): S[image, text] = log P(t|i)
over a whole gallery, image→text recall under score_α = log P(t|i) − α log P(t), with
log P(t) the mean over the gallery's own images ("testset images", the paper's choice for
COCO/Flickr30k), α* picked on a validation gallery and applied to the test gallery.

Text→image retrieval ranks images for one text, so α cancels: it is reported raw. Ties
with a wrong candidate count as misses (strict), as in `vlcomp.metrics.retrieval`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.debias import alpha_grid, best_alpha, log_mean_exp
from vlcomp.metrics.ranking import hit_rate_at_k, rank_scores

KS = (1, 5, 10)


def gallery_prior(scores: np.ndarray) -> np.ndarray:
    """log P(t) per text: log of the mean over the gallery's images of P(t|i)."""
    return log_mean_exp(np.asarray(scores, np.float64), axis=0)


def _check(scores: np.ndarray, text_image: np.ndarray) -> None:
    n_img, n_txt = scores.shape
    if len(text_image) != n_txt:
        raise ValueError(f"{len(text_image)} text→image links for {n_txt} texts")
    if n_txt and (text_image.min() < 0 or text_image.max() >= n_img):
        raise ValueError(f"text→image links must lie in 0..{n_img - 1}")
    if not (np.bincount(text_image, minlength=n_img) > 0).all():
        raise ValueError("every gallery image needs at least one text")


def i2t_hits_over_alphas(scores: np.ndarray, log_prior: np.ndarray,
                         text_image: Sequence[int], alphas: np.ndarray,
                         max_elements: int = 1 << 24) -> np.ndarray:
    """bool (n_images, n_alphas): an image scores at α when one of its own texts beats
    every other text strictly under score_α. Vectorised over α in blocks of images."""
    s = np.asarray(scores, np.float64)
    links = np.asarray(text_image, np.int64)
    _check(s, links)
    p = np.asarray(log_prior, np.float64)
    alphas = np.asarray(alphas, np.float64)
    n_img, n_txt = s.shape
    block = max(1, max_elements // max(1, len(alphas) * n_txt))
    hits = np.zeros((n_img, len(alphas)), dtype=bool)
    for start in range(0, n_img, block):
        rows = np.arange(start, min(start + block, n_img))
        shifted = s[rows][None] - alphas[:, None, None] * p[None, None, :]  # (α, img, txt)
        own = links[None, :] == rows[:, None]  # (img, txt)
        best_own = np.where(own[None], shifted, -np.inf).max(axis=2)
        best_other = np.where(own[None], -np.inf, shifted).max(axis=2)
        hits[rows] = (best_own > best_other).T
    return hits


def i2t_r1_over_alphas(scores: np.ndarray, log_prior: np.ndarray, text_image: Sequence[int],
                       alphas: np.ndarray, max_elements: int = 1 << 24) -> np.ndarray:
    """Image→text R@1 (%) at every α (`i2t_hits_over_alphas` averaged over images)."""
    hits = i2t_hits_over_alphas(scores, log_prior, text_image, alphas, max_elements)
    return 100 * hits.sum(axis=0) / len(hits)


def recall_hits(scores: np.ndarray, text_image: Sequence[int],
                log_prior: np.ndarray | None = None, alpha: float = 0.0,
                ks: Sequence[int] = KS) -> dict[str, np.ndarray]:
    """Per-query hits at one α: ``i2t_r{k}`` per image, ``t2i_r{k}`` per text (α-invariant;
    ``log_prior`` needed for α ≠ 0)."""
    s = np.asarray(scores, np.float64)
    links = np.asarray(text_image, np.int64)
    _check(s, links)
    shifted = s if alpha == 0 else s - alpha * np.asarray(log_prior, np.float64)[None, :]
    n_img = s.shape[0]
    out = {}
    for name, matrix, query, item in (("i2t", shifted, np.arange(n_img), links),
                                      ("t2i", s.T, links, np.arange(n_img))):
        ranking = rank_scores(matrix, query, item, k=max(ks))
        for k in ks:
            out[f"{name}_r{k}"] = hit_rate_at_k(ranking, k)
    return out


SUBGALLERIES = (("quarter", 4), ("half", 2))  # VisualGPTScore Table 9: smaller galleries


def subgallery_i2t_hits(scores: np.ndarray, text_image: Sequence[int], parts: int,
                        seed: int = 0) -> np.ndarray:
    """Image→text R@1 hits at α = 0 with each image ranking only the texts of its own random
    sub-gallery: the images cut, in a seeded random order, into ``parts`` sub-galleries of
    (nearly) equal size, each with its images' texts (VisualGPTScore appendix Table 9 ranks
    random LAION subsets of 100 to 5,000 pairs)."""
    s = np.asarray(scores)
    links = np.asarray(text_image, np.int64)
    _check(s, links)
    n_img = s.shape[0]
    hits = np.zeros(n_img, dtype=bool)
    order = np.random.default_rng(seed).permutation(n_img)
    for part in np.array_split(order, parts):
        images = np.sort(part)
        texts = np.flatnonzero(np.isin(links, images))
        ranking = rank_scores(s[np.ix_(images, texts)], images, links[texts], k=1)
        hits[images] = hit_rate_at_k(ranking, 1)
    return hits


def recalls(scores: np.ndarray, text_image: Sequence[int], log_prior: np.ndarray | None = None,
            alpha: float = 0.0, ks: Sequence[int] = KS) -> dict[str, float]:
    """R@K (%) both ways at one α (`recall_hits` averaged)."""
    return {name: round(float(h.mean() * 100), 4)
            for name, h in recall_hits(scores, text_image, log_prior, alpha, ks).items()}


def generative_retrieval(test_scores: np.ndarray, test_links: Sequence[int],
                         val_scores: np.ndarray, val_links: Sequence[int], *,
                         step: float = 0.001, ks: Sequence[int] = KS,
                         null_priors: tuple[np.ndarray, np.ndarray] | None = None,
                         null_images: int = 0) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(curve: ``alpha``, validation and test I2T R@1 per α; record: raw R@K both ways,
    I2T R@K at α = 1 and at α*_val (picked on the validation gallery, smallest best), and the
    oracle α* on the test gallery).

    ``null_priors`` (log P(t|null) of the test and validation texts from ``null_images``
    Gaussian images, VisualGPTScore Table 6's "Null Images"): the record's ``null`` holds
    α = 1 and α*_val (picked on validation with that prior) beside the gallery mean's."""
    alphas = alpha_grid(step)
    test_scores, val_scores = np.asarray(test_scores), np.asarray(val_scores)
    test_prior, val_prior = gallery_prior(test_scores), gallery_prior(val_scores)
    val_curve = i2t_r1_over_alphas(val_scores, val_prior, val_links, alphas)
    test_curve = i2t_r1_over_alphas(test_scores, test_prior, test_links, alphas)
    alpha_val, val_r1 = best_alpha(val_curve, alphas)
    oracle_alpha, oracle_r1 = best_alpha(test_curve, alphas)

    def i2t_at(alpha: float, prior: np.ndarray = test_prior) -> dict[str, float]:
        full = recalls(test_scores, test_links, prior, alpha, ks)
        return {k: v for k, v in full.items() if k.startswith("i2t")}

    record = {
        "metric": "generative_retrieval", "tie_policy": "strict", "alpha_step": step,
        "prior": "gallery mean", "n_images": int(test_scores.shape[0]),
        "n_texts": int(test_scores.shape[1]),
        "overall": recalls(test_scores, test_links, ks=ks),
        "alpha1": i2t_at(1.0),
        "alpha_val": {"alpha": alpha_val, **i2t_at(alpha_val)},
        "oracle": {"alpha": oracle_alpha, "i2t_r1": round(oracle_r1, 4)},
        "val": {"n_images": int(val_scores.shape[0]), "n_texts": int(val_scores.shape[1]),
                "i2t_r1_alpha0": round(float(val_curve[0]), 4), "i2t_r1": round(val_r1, 4)},
    }
    if null_priors is not None:
        test_null, val_null = (np.asarray(p, np.float64) for p in null_priors)
        if test_null.shape != (test_scores.shape[1],) or val_null.shape != (
                val_scores.shape[1],):
            raise ValueError(f"null priors of {test_null.shape} / {val_null.shape} texts for "
                             f"galleries of {test_scores.shape[1]} / {val_scores.shape[1]}")
        null_val_curve = i2t_r1_over_alphas(val_scores, val_null, val_links, alphas)
        null_alpha, _ = best_alpha(null_val_curve, alphas)
        record["null"] = {"n_images": int(null_images), "alpha1": i2t_at(1.0, test_null),
                          "alpha_val": {"alpha": null_alpha, **i2t_at(null_alpha, test_null)}}
    curve = pd.DataFrame({"alpha": alphas, "val_i2t_r1": np.round(val_curve, 4),
                          "test_i2t_r1": np.round(test_curve, 4)})
    return curve, record
