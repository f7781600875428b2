"""Retrieval re-ranked by a pair score, as ARO and BLIP rank a gallery with ITM.

BLIP's ``train_retrieval.py`` evaluation, and ARO's ``get_retrieval_scores_dataset`` for BLIP
and X-VLM, rank a gallery in two steps. The embedding (ITC) cosine ``sims = images @ texts.T``
picks each query's ``k_test`` best candidates (``sims.topk(k_test)``: per image its texts for
image→text, per text its images for text→image). Only those candidates are scored by the
cross-encoder, ``itm_head(...)[:, 1] + topk_sim`` (the ITM match logit plus the ITC cosine:
this package's ``pair_score: itm_plus_itc``); every other pair of the query's row keeps
``-100`` (`FLOOR`). The two directions have their own candidate sets and score matrices.

Here the candidates are `top_candidates` (ties broken by the lower index, where ``topk`` is
unspecified), the pairs to score are `candidate_pairs` (each distinct (image, text) pair once:
the pair score does not depend on the direction), and `reranked_hits` computes the hits of the
two sparse matrices under the package's strict tie policy (`vlcomp.metrics.ranking`: an
irrelevant item scoring the same as a relevant one ranks ahead of it), without building the
dense ``-100`` matrices: equal, hit for hit, to `retrieval_hits_from_scores` on them.
`reranked_rankings` gives the same matrices' top-K `Ranking`s (the robustness metrics: recalls,
DCG and splits all read a ranking), filled one block of queries at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from vlcomp.metrics.ranking import Ranking, rank_blocks
from vlcomp.metrics.retrieval import KS

FLOOR = -100.0  # BLIP / ARO: the score of every pair outside a query's top k_test
BLOCK_ROWS = 1024


class Candidates(NamedTuple):
    """Each query's ``k_test`` candidates by the embedding score, best first: ``i2t[i]``
    gallery text positions for image ``i``, ``t2i[t]`` gallery image rows for text ``t``."""

    i2t: np.ndarray
    t2i: np.ndarray


def top_candidates(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of every row's ``k`` highest scores (all when ``k`` exceeds the row),
    best first, equal scores by the lower column: (rows, min(k, columns)) int64."""
    if k < 1:
        raise ValueError(f"k_test must be >= 1, got {k}")
    scores = np.asarray(scores)
    keep = min(k, scores.shape[1])
    out = np.empty((scores.shape[0], keep), dtype=np.int64)
    for start in range(0, scores.shape[0], BLOCK_ROWS):
        block = scores[start:start + BLOCK_ROWS]
        out[start:start + BLOCK_ROWS] = np.argsort(-block, axis=1, kind="stable")[:, :keep]
    return out


def select_candidates(image_features: np.ndarray, text_features: np.ndarray,
                      k: int, t2i_features: np.ndarray | None = None) -> Candidates:
    """Both directions' candidates from L2-normalised embeddings (the cosine of BLIP's
    ``sims_matrix``), computed in float32 as the references do. Text→image ranks
    ``t2i_features`` when given (the gallery's images, then extra ones), else the images."""
    images = np.asarray(image_features, dtype=np.float32)
    texts = np.asarray(text_features, dtype=np.float32)
    sims = images @ texts.T
    if t2i_features is None:
        return Candidates(top_candidates(sims, k), top_candidates(sims.T, k))
    t2i = texts @ np.asarray(t2i_features, dtype=np.float32).T
    return Candidates(top_candidates(sims, k), top_candidates(t2i, k))


def candidate_pairs(candidates: Candidates) -> np.ndarray:
    """The distinct (image row, text position) pairs of both directions, sorted: (p, 2)."""
    n_img = candidates.i2t.shape[0]
    i2t = np.stack([np.repeat(np.arange(n_img), candidates.i2t.shape[1]),
                    candidates.i2t.ravel()], axis=1)
    n_txt = candidates.t2i.shape[0]
    t2i = np.stack([candidates.t2i.ravel(),
                    np.repeat(np.arange(n_txt), candidates.t2i.shape[1])], axis=1)
    return np.unique(np.concatenate([i2t, t2i]).astype(np.int64), axis=0)


def pair_lookup(pairs: np.ndarray, values: np.ndarray, images: np.ndarray,
                texts: np.ndarray, n_texts: int) -> np.ndarray:
    """``values`` of the pairs (images[k], texts[k]) (any shape), looked up in the sorted
    ``pairs``; KeyError naming the first pair that was not scored."""
    keys = pairs[:, 0] * n_texts + pairs[:, 1]
    want = np.asarray(images, dtype=np.int64) * n_texts + np.asarray(texts, dtype=np.int64)
    pos = np.clip(np.searchsorted(keys, want), 0, max(len(keys) - 1, 0))
    found = (keys[pos] == want) if len(keys) else np.zeros(want.shape, dtype=bool)
    if not found.all():
        bad = np.argwhere(~found)[0]
        image, text = np.asarray(images)[tuple(bad)], np.asarray(texts)[tuple(bad)]
        raise KeyError(f"pair (image {int(image)}, text {int(text)}) was not scored")
    return values[pos]


def candidate_scores(candidates: Candidates, pairs: np.ndarray,
                     values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The re-ranked scores of each query's candidates (same shapes as ``candidates``)."""
    n_img, n_txt = candidates.i2t.shape[0], candidates.t2i.shape[0]
    rows = np.broadcast_to(np.arange(n_img)[:, None], candidates.i2t.shape)
    i2t = pair_lookup(pairs, values, rows, candidates.i2t, n_txt)
    cols = np.broadcast_to(np.arange(n_txt)[:, None], candidates.t2i.shape)
    t2i = pair_lookup(pairs, values, candidates.t2i, cols, n_txt)
    return i2t, t2i


def _sparse_hits(items: np.ndarray, scores: np.ndarray, relevant: np.ndarray,
                 n_relevant: np.ndarray, n_items: int, ks: Sequence[int]) -> dict[int, np.ndarray]:
    """Hits at each K of queries whose candidates ``items`` score ``scores`` and every other
    item `FLOOR`: the first relevant item is the best-scoring relevant one (or a relevant
    non-candidate at the floor), ranked behind every irrelevant item scoring as much."""
    has = relevant.any(axis=1)
    best = np.where(has, np.where(relevant, scores, -np.inf).max(axis=1), FLOOR)
    ahead = ((~relevant) & (scores >= best[:, None])).sum(axis=1)
    n_rel_cand = relevant.sum(axis=1)
    irrelevant_rest = (n_items - items.shape[1]) - (n_relevant - n_rel_cand)
    rank = ahead + np.where(best <= FLOOR, irrelevant_rest, 0)
    return {k: rank < k for k in ks}


def reranked_hits(candidates: Candidates, i2t_scores: np.ndarray, t2i_scores: np.ndarray,
                  text_image: Sequence[int], ks: Sequence[int] = KS) -> dict[str, np.ndarray]:
    """Per-item hits of the re-ranked matrices, named as `retrieval_hits` names them:
    ``i2t_r{k}`` per gallery image, ``t2i_r{k}`` per text."""
    links = np.asarray(text_image, dtype=np.int64)
    n_img, n_txt = candidates.i2t.shape[0], candidates.t2i.shape[0]
    if len(links) != n_txt:
        raise ValueError(f"{len(links)} text→image links for {n_txt} texts")
    per_image = np.bincount(links, minlength=n_img)
    i2t = _sparse_hits(candidates.i2t, i2t_scores,
                       links[candidates.i2t] == np.arange(n_img)[:, None], per_image, n_txt, ks)
    t2i = _sparse_hits(candidates.t2i, t2i_scores, candidates.t2i == links[:, None],
                       np.ones(n_txt, dtype=np.int64), n_img, ks)
    return {**{f"i2t_r{k}": i2t[k] for k in ks}, **{f"t2i_r{k}": t2i[k] for k in ks}}


def dense_reranked(candidates: Candidates, i2t_scores: np.ndarray,
                   t2i_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The references' matrices: images × texts (image→text) and texts × images
    (text→image), `FLOOR` outside the candidates (for tests and small galleries)."""
    n_img, n_txt = candidates.i2t.shape[0], candidates.t2i.shape[0]
    i2t = np.full((n_img, n_txt), FLOOR)
    np.put_along_axis(i2t, candidates.i2t, i2t_scores, axis=1)
    t2i = np.full((n_txt, n_img), FLOOR)
    np.put_along_axis(t2i, candidates.t2i, t2i_scores, axis=1)
    return i2t, t2i


def _filled(items: np.ndarray, scores: np.ndarray, n_items: int):
    """Rows ``a:b`` of the dense matrix: `FLOOR`, each row's candidates at their scores."""
    def block(a: int, b: int) -> np.ndarray:
        dense = np.full((b - a, n_items), FLOOR)
        np.put_along_axis(dense, items[a:b], scores[a:b], axis=1)
        return dense
    return block


def reranked_rankings(candidates: Candidates, i2t_scores: np.ndarray, t2i_scores: np.ndarray,
                      text_image: Sequence[int], n_t2i_images: int | None = None,
                      k: int = max(KS)) -> tuple[Ranking, Ranking]:
    """The strict top-``k`` `Ranking`s (image→text, text→image) of the re-ranked matrices:
    each query's candidates at their re-ranked scores, every other item at `FLOOR`, as
    `vlcomp.metrics.robustness.rank_both` ranks embeddings. Text→image ranks
    ``n_t2i_images`` images (the gallery's rows first; default the gallery's)."""
    links = np.asarray(text_image, dtype=np.int64)
    n_img, n_txt = candidates.i2t.shape[0], candidates.t2i.shape[0]
    n_t2i = n_img if n_t2i_images is None else int(n_t2i_images)
    i2t = rank_blocks(_filled(candidates.i2t, i2t_scores, n_txt), n_img, n_txt,
                      np.arange(n_img), links, k)
    t2i = rank_blocks(_filled(candidates.t2i, t2i_scores, n_t2i), n_txt, n_t2i, links,
                      np.arange(n_t2i), k)
    return i2t, t2i
