"""COCO-1K retrieval: R@K both ways on consecutive folds of the gallery, averaged over folds.

The standard "1K test" protocol (VSE++ ``evaluation.evalrank(fold5=True)``, SCAN, used by
BISON Tables 3 and 7 as "COCO-1K"): the 5,000 Karpathy test images, in gallery order, are cut
into 5 consecutive folds of 1,000; fold ``f`` holds images ``[1000 f, 1000 (f+1))`` and their
captions, texts ``[5000 f, 5000 (f+1))``. R@1/5/10 are computed inside each fold (i2t: an
image is a hit when *any* of its captions is in the top K, averaged over the fold's images;
t2i: a caption is a hit when its image is in the top K, averaged over the fold's texts) and
the five fold values are averaged. Ties count against the model (`vlcomp.metrics.ranking`;
SCAN breaks them by ``np.argsort`` order, which rarely matters for float scores).

**Images with more than five captions.** The Karpathy COCO test split has 25,010 captions for
its 5,000 images (a few images have 6 or 7). The protocol keeps exactly the *first five* of
each image, in Karpathy order (VSE++ ``data.get_paths``: ``sentids[:5]``; SCAN's
``testall_caps.txt`` has 25,000 lines, caption ``5 i + j`` belongs to image ``i``), so every
fold has exactly 5,000 texts. `fold_retrieval_metrics` therefore requires exactly
``captions_per_image`` texts per image and refuses the 25,010-caption set; select the
standard texts first with `first_captions`. (CLIP_benchmark's one-gallery 5K evaluation keeps
all 25,010; that is a different protocol: `vlcomp.metrics.ranking.clip_benchmark_recall`.)

BISON reports only R@1 and R@5; Table 3/7 "Image retrieval" is t2i, "Caption retrieval" i2t.
The paper does not say whether "COCO-1K" is the 5-fold average or the first fold alone; both
are returned (``overall`` and ``per_fold[0]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from vlcomp.metrics.ranking import hit_rate_at_k, rank_scores

KS = (1, 5, 10)
FOLDS = 5
CAPTIONS_PER_IMAGE = 5
DECIMALS = 4


def first_captions(text_image: ArrayLike, k: int = CAPTIONS_PER_IMAGE) -> np.ndarray:
    """Positions of the first ``k`` texts of every image, in the given text order (the
    protocol's 25,000 of COCO's 25,010 test captions when texts are in Karpathy order).
    An image with fewer than ``k`` texts is an error (named)."""
    links = np.asarray(text_image)
    if links.ndim != 1:
        raise ValueError(f"text_image must be 1-D, got shape {links.shape}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    seen: dict[Any, int] = {}
    keep = []
    for pos, image in enumerate(links.tolist()):
        n = seen.get(image, 0)
        if n < k:
            keep.append(pos)
        seen[image] = n + 1
    short = {image: n for image, n in seen.items() if n < k}
    if short:
        image, n = next(iter(short.items()))
        raise ValueError(f"{len(short)} images have fewer than {k} texts, e.g. image "
                         f"{image!r} has {n}")
    return np.asarray(keep, dtype=np.int64)


def _check(scores: np.ndarray, links: np.ndarray, folds: int, per_image: int) -> int:
    """Validate the inputs; return the fold size (images per fold)."""
    if scores.ndim != 2:
        raise ValueError(f"scores must be 2-D (images × texts), got shape {scores.shape}")
    n_img, n_txt = scores.shape
    if links.shape != (n_txt,):
        raise ValueError(f"{links.shape[0] if links.ndim == 1 else links.shape} text→image "
                         f"links for {n_txt} texts (scores are images × texts)")
    if not np.issubdtype(links.dtype, np.integer):
        raise ValueError(f"text_image must hold integer image rows, got {links.dtype}")
    if folds < 1 or n_img == 0 or n_img % folds:
        raise ValueError(f"{n_img} images do not split into {folds} equal folds")
    if n_txt and (links.min() < 0 or links.max() >= n_img):
        bad = int(np.flatnonzero((links < 0) | (links >= n_img))[0])
        raise ValueError(f"text {bad} links to image {int(links[bad])}, outside 0..{n_img - 1}")
    counts = np.bincount(links, minlength=n_img)
    off = np.flatnonzero(counts != per_image)
    if len(off):
        raise ValueError(
            f"{len(off)} images do not have exactly {per_image} texts, e.g. image "
            f"{int(off[0])} has {int(counts[off[0]])}; keep the first {per_image} per image "
            "(first_captions), as the standard protocol does")
    return n_img // folds


def fold_texts(text_image: ArrayLike, k: int = CAPTIONS_PER_IMAGE) -> np.ndarray:
    """The protocol's texts in fold order: each image's first ``k`` texts (`first_captions`),
    grouped by image in gallery order (a text's place among its image's kept in the order
    given)."""
    links = np.asarray(text_image)
    kept = first_captions(links, k)
    return kept[np.argsort(links[kept], kind="stable")]


def fold_retrieval_hits(
    scores: ArrayLike,
    text_image: Sequence[int] | np.ndarray,
    *,
    folds: int = FOLDS,
    ks: Sequence[int] = KS,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
) -> dict[str, np.ndarray]:
    """Hits inside each image's fold: ``i2t_r{k}`` per gallery image, ``t2i_r{k}`` per
    text, as `vlcomp.metrics.retrieval.retrieval_hits` names them; a fold's R@K is the mean
    of its slice, and with equal folds the overall mean is the mean of the folds' R@K.

    ``scores[i, t]`` is the score of gallery image ``i`` with text ``t`` (images × texts);
    ``text_image[t]`` is text ``t``'s image row. Fold ``f`` holds images ``[f m, (f+1) m)``
    (``m = n_images / folds``) and texts ``[f T, (f+1) T)`` (``T = n_texts / folds``); every
    text of a fold must belong to one of the fold's images, and every image must have exactly
    ``captions_per_image`` texts (module docstring; `fold_texts` selects them)."""
    s = np.asarray(scores)
    links = np.asarray(text_image)
    m = _check(s, links, folds, captions_per_image)
    t = len(links) // folds
    hits: dict[str, list[np.ndarray]] = {f"{d}_r{k}": [] for d in ("i2t", "t2i") for k in ks}
    for f in range(folds):
        lo, hi = f * m, (f + 1) * m
        local = links[f * t:(f + 1) * t] - lo
        outside = np.flatnonzero((local < 0) | (local >= m))
        if len(outside):
            bad = f * t + int(outside[0])
            raise ValueError(f"fold {f} (texts {f * t}..{(f + 1) * t - 1}): text {bad} links to "
                             f"image {int(links[bad])}, outside its images {lo}..{hi - 1}; "
                             "texts must follow their images' gallery order")
        block = s[lo:hi, f * t:(f + 1) * t]
        i2t = rank_scores(block, np.arange(m), local, k=max(ks))
        t2i = rank_scores(block.T, local, np.arange(m), k=max(ks))
        for d, ranking in (("i2t", i2t), ("t2i", t2i)):
            for k in ks:
                hits[f"{d}_r{k}"].append(np.asarray(hit_rate_at_k(ranking, k), dtype=bool))
    return {name: np.concatenate(parts) for name, parts in hits.items()}


def fold_retrieval_metrics(
    scores: ArrayLike,
    text_image: Sequence[int] | np.ndarray,
    *,
    folds: int = FOLDS,
    ks: Sequence[int] = KS,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
) -> dict[str, Any]:
    """R@K (percent) both ways per fold and averaged over ``folds`` consecutive folds
    (`fold_retrieval_hits`). Keys ``i2t_r{k}`` / ``t2i_r{k}`` as in
    `vlcomp.metrics.retrieval.retrieval_metrics`; ``overall`` is the mean of the fold values.
    """
    s = np.asarray(scores)
    hits = fold_retrieval_hits(s, text_image, folds=folds, ks=ks,
                               captions_per_image=captions_per_image)
    m, t = s.shape[0] // folds, s.shape[1] // folds
    size = {"i2t": m, "t2i": t}  # items per fold: images (i2t hits), texts (t2i hits)
    per_fold = [{name: 100.0 * float(h.reshape(folds, size[name[:3]])[f].mean())
                 for name, h in hits.items()} for f in range(folds)]
    overall = {n: round(float(np.mean([p[n] for p in per_fold])), DECIMALS) for n in hits}
    return {
        "metric": "fold_retrieval", "tie_policy": "strict", "folds": folds,
        "images_per_fold": m, "texts_per_fold": t, "n_images": int(s.shape[0]),
        "n_texts": int(s.shape[1]), "overall": overall,
        "per_fold": [{n: round(p[n], DECIMALS) for n in hits} for p in per_fold],
    }
