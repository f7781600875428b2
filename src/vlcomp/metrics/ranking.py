"""Per-query ranking metrics: two recall conventions, relevance DCG, robustness splits.

Everything starts from a `Ranking`: the top ``K`` items per query of a score matrix
(queries × gallery), computed in row blocks with ``np.partition`` so that a 5k × 25k COCO
gallery never needs a sort of whole rows or Python loops over elements. An item is
*relevant* to a query when their keys are equal (``query_keys[q] == item_keys[j]``):

* text→image (t2i): ``query_keys = text_image`` (each text's image), ``item_keys =
  arange(n_images)``;
* image→text (i2t): ``query_keys = arange(n_images)``, ``item_keys = text_image``
  (Hendriksen et al.'s "target is the image id of the retrieved captions").

**Tie policy (strict).** Items are ordered by score (descending), then *irrelevant before
relevant*, then by index. A wrong item scoring the same as a right one ranks ahead of it, so
ties always count against the model (`vlcomp.metrics.retrieval.retrieval_metrics` reports
the mean of `hit_rate_at_k` × 100). Neither reference defines a tie rule (CLIP_benchmark
uses ``torch.topk``, Hendriksen a score sort); with float scores ties are rare.

**Two recall conventions; do not mix them up.**

* `hit_rate_at_k` (CLIP_benchmark ``recall_at_k``: ``(recall > 0).mean()``): 1 if *any*
  relevant item is in the top ``k``, else 0. `clip_benchmark_recall` reproduces its
  ``image_retrieval_recall@k`` (t2i, averaged over texts) and ``text_retrieval_recall@k``
  (i2t, averaged over images), as fractions. The ARO retrieval and `retrieval_metrics` use
  this convention too (there in percent).
* `true_recall_at_k` (Hendriksen et al. ``recall_at_k.py``):
  ``retrieved[:k].count(target) / min(total, len(retrieved[:k]))``. With their
  ``total = 5`` for i2t, R@1 ∈ {0, 1}, R@5 = #GT in top 5 / 5, R@10 = #GT in top 10 / 5
  (> 1 possible for an image with more than 5 captions, as on COCO); with ``total = 1``
  (t2i) it equals the hit rate. `hendriksen_recalls` uses these reference totals
  (`HENDRIKSEN_TOTAL`) unless told ``total="collection"``: each query's own number of
  relevant items in the gallery, which keeps the value in [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

KS = (1, 5, 10)
DCG_K = 10
DCG_DECIMALS = 4
BLOCK_SIZE = 512
HENDRIKSEN_TOTAL = {"t2i": 1, "i2t": 5}
SPLITS = ("decreased", "increased", "unchanged")


@dataclass(frozen=True)
class Ranking:
    """The strict top ``K`` of every query (``K`` = min(k, gallery size)).

    ``items[q, r]`` is the gallery index at rank ``r`` (0 = best), ``scores[q, r]`` its
    score, ``relevant[q, r]`` whether it is relevant to query ``q``, and ``n_relevant[q]``
    the number of items relevant to ``q`` in the whole gallery of ``n_items`` items.
    """

    items: np.ndarray
    scores: np.ndarray
    relevant: np.ndarray
    n_relevant: np.ndarray
    n_items: int

    @property
    def k(self) -> int:
        return self.items.shape[1]


def _count_keys(query_keys: np.ndarray, item_keys: np.ndarray) -> np.ndarray:
    """Per query, how many gallery items share its key."""
    uniq, counts = np.unique(item_keys, return_counts=True)
    if len(uniq) == 0:
        return np.zeros(len(query_keys), dtype=np.int64)
    pos = np.clip(np.searchsorted(uniq, query_keys), 0, len(uniq) - 1)
    return np.where(uniq[pos] == query_keys, counts[pos], 0).astype(np.int64)


def _block_top_k(
    s: np.ndarray, q_keys: np.ndarray, item_keys: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strict top ``k`` of each row of the score block ``s`` (rows × gallery)."""
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    # k-th largest score per row; every item scoring at least that is a candidate (>= k of
    # them, more when there are ties at the cut), so the tie order below decides who stays.
    kth = -np.partition(-s, k - 1, axis=1)[:, k - 1 : k]
    rows, cols = np.nonzero(s >= kth)
    cand = s[rows, cols]
    rel = q_keys[rows] == item_keys[cols]
    order = np.lexsort((cols, rel, -cand, rows))  # row, score desc, wrong first, index
    rows, cols, cand, rel = rows[order], cols[order], cand[order], rel[order]
    starts = np.searchsorted(rows, np.arange(len(s)))
    keep = np.arange(len(rows)) - starts[rows] < k
    shape = (len(s), k)
    return cols[keep].reshape(shape), cand[keep].reshape(shape), rel[keep].reshape(shape)


def rank_blocks(
    block_scores: Callable[[int, int], np.ndarray],
    n_queries: int,
    n_items: int,
    query_keys: ArrayLike,
    item_keys: ArrayLike,
    k: int,
    block_size: int = BLOCK_SIZE,
) -> Ranking:
    """Strict top ``k`` of ``n_queries`` rows of scores over ``n_items`` items, where
    ``block_scores(start, stop)`` gives rows ``start:stop`` (a dense block, made on demand:
    from features, a stored matrix, or sparse scores with a fill value)."""
    q_keys, i_keys = np.asarray(query_keys), np.asarray(item_keys)
    if q_keys.shape != (n_queries,) or i_keys.shape != (n_items,):
        raise ValueError(
            f"{q_keys.shape} query keys / {i_keys.shape} item keys for "
            f"{n_queries} queries × {n_items} items"
        )
    if k < 1 or n_items < 1:
        raise ValueError(f"need k >= 1 and a non-empty gallery, got k={k}, {n_items} items")
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    k = min(k, n_items)
    items = np.empty((n_queries, k), dtype=np.int64)
    scores: np.ndarray | None = None
    relevant = np.empty((n_queries, k), dtype=bool)
    for start in range(0, n_queries, block_size):
        stop = min(start + block_size, n_queries)
        s = np.asarray(block_scores(start, stop))
        if s.shape != (stop - start, n_items):
            raise ValueError(f"score block of shape {s.shape}, expected {(stop - start, n_items)}")
        if scores is None:
            scores = np.empty((n_queries, k), dtype=s.dtype)
        items[start:stop], scores[start:stop], relevant[start:stop] = _block_top_k(
            s, q_keys[start:stop], i_keys, k
        )
    if scores is None:
        scores = np.empty((0, k), dtype=np.float32)
    return Ranking(items, scores, relevant, _count_keys(q_keys, i_keys), n_items)


def rank_scores(
    scores: np.ndarray,
    query_keys: ArrayLike,
    item_keys: ArrayLike,
    k: int = max(KS),
    block_size: int = BLOCK_SIZE,
) -> Ranking:
    """Strict top ``k`` of each row of ``scores`` (queries × gallery), in row blocks.

    ``scores`` may be a transposed view or a memmap; one block of ``block_size`` rows is
    copied at a time. Relevance is ``query_keys[q] == item_keys[j]`` (module docstring).
    """
    if np.ndim(scores) != 2:
        raise ValueError(f"scores must be 2-D, got shape {np.shape(scores)}")
    n_q, n_items = scores.shape
    return rank_blocks(lambda a, b: scores[a:b], n_q, n_items, query_keys, item_keys, k, block_size)


def rank_features(
    query_features: np.ndarray,
    item_features: np.ndarray,
    query_keys: ArrayLike,
    item_keys: ArrayLike,
    k: int = max(KS),
    block_size: int = BLOCK_SIZE,
) -> Ranking:
    """`rank_scores` of ``query_features @ item_features.T`` (float32), computed one block of
    queries at a time so the full matrix is never held. Features are used as given (pass
    L2-normalised ones for cosine scores)."""
    q = np.asarray(query_features, dtype=np.float32)
    g = np.ascontiguousarray(np.asarray(item_features, dtype=np.float32).T)
    if q.ndim != 2 or g.ndim != 2 or q.shape[1] != g.shape[0]:
        raise ValueError(f"feature shapes {q.shape} and {g.T.shape} do not match")
    return rank_blocks(lambda a, b: q[a:b] @ g, len(q), g.shape[1], query_keys, item_keys, k,
                 block_size)


def _relevant_matrix(relevant: ArrayLike | Ranking) -> np.ndarray:
    rel = relevant.relevant if isinstance(relevant, Ranking) else np.asarray(relevant)
    if rel.ndim != 2 or rel.dtype != bool:
        raise ValueError(f"relevant must be a 2-D bool array, got {rel.dtype} {rel.shape}")
    return rel


def _depth(relevant: ArrayLike | Ranking, rel: np.ndarray, k: int) -> int:
    """``k`` checked against the ranked depth ``K``. A `Ranking` that lists the whole gallery
    answers any ``k > K`` with its whole list (as ``retrieved[:k]`` is just shorter)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k <= rel.shape[1]:
        return k
    if isinstance(relevant, Ranking) and relevant.k == relevant.n_items:
        return relevant.k
    raise ValueError(f"k={k} exceeds the ranked depth {rel.shape[1]}; rank deeper")


def hit_rate_at_k(relevant: ArrayLike | Ranking, k: int) -> np.ndarray:
    """CLIP_benchmark convention, per query: 1.0 if any relevant item is within the top
    ``k``, else 0.0 (the mean over queries is CLIP_benchmark's "recall@k").

    ``relevant`` is a `Ranking` or its ``(queries, K)`` bool matrix; ``k`` ≤ ``K``, or any
    ``k`` for a `Ranking` that lists the whole gallery.
    """
    rel = _relevant_matrix(relevant)
    k = _depth(relevant, rel, k)
    return rel[:, :k].any(axis=1).astype(np.float64)


def true_recall_at_k(
    relevant: ArrayLike | Ranking, k: int, total: int | ArrayLike
) -> np.ndarray:
    """Hendriksen et al. convention, per query:
    ``#relevant in top k / min(total, len(top k))`` (``total`` a number or one per query).

    With ``total = 5`` (their i2t): R@1 ∈ {0, 1}, R@5 = #GT in top 5 / 5, R@10 = #GT in
    top 10 / 5 (can exceed 1). With ``total = 1`` (their t2i) it is a hit count.
    """
    rel = _relevant_matrix(relevant)
    k = _depth(relevant, rel, k)
    tot = np.broadcast_to(np.asarray(total, dtype=np.float64), (rel.shape[0],))
    if (tot < 1).any():
        raise ValueError("total must be >= 1 for every query")
    return rel[:, :k].sum(axis=1) / np.minimum(tot, k)


def hendriksen_recalls(
    ranking: Ranking,
    task: Literal["t2i", "i2t"],
    ks: Sequence[int] = KS,
    total: int | ArrayLike | Literal["collection"] | None = None,
) -> dict[str, np.ndarray]:
    """Per-query Hendriksen recalls ``{"r1": ..., "r5": ..., "r10": ..., "rsum": ...}``.

    ``total`` None uses the reference's ``HENDRIKSEN_TOTAL[task]`` (1 for t2i, 5 for i2t);
    ``"collection"`` uses each query's number of relevant items in the gallery; a number or
    per-query array is used as given. ``rsum`` is the sum over ``ks`` (R@1+R@5+R@10).
    """
    if task not in HENDRIKSEN_TOTAL:
        raise ValueError(f"task must be t2i or i2t, got {task!r}")
    if total is None:
        total = HENDRIKSEN_TOTAL[task]
    elif isinstance(total, str):
        if total != "collection":
            raise ValueError(f"total must be a number, an array, None or 'collection': {total!r}")
        total = ranking.n_relevant
    out = {f"r{k}": true_recall_at_k(ranking, k, total) for k in ks}
    out["rsum"] = np.sum([out[f"r{k}"] for k in ks], axis=0)
    return out


def clip_benchmark_recall(
    scores: np.ndarray,
    text_image: ArrayLike,
    ks: Sequence[int] = KS,
    block_size: int = BLOCK_SIZE,
) -> dict[str, float]:
    """CLIP_benchmark ``zeroshot_retrieval`` metrics (fractions) from ``scores`` shaped
    (texts, images) as there (``texts_emb @ images_emb.T``); ``text_image[t]`` is text
    ``t``'s image. ``image_retrieval_recall@k``: t2i hit rate over texts;
    ``text_retrieval_recall@k``: i2t hit rate over images (any caption in the top k).
    Ties are strict (see the module docstring)."""
    scores = np.asarray(scores)
    text_image = np.asarray(text_image)
    if scores.ndim != 2:
        raise ValueError(f"scores must be 2-D, got shape {scores.shape}")
    n_img = scores.shape[1]
    depth = max(ks)
    t2i = rank_scores(scores, text_image, np.arange(n_img), depth, block_size)
    i2t = rank_scores(scores.T, np.arange(n_img), text_image, depth, block_size)
    out: dict[str, float] = {}
    for k in ks:
        out[f"image_retrieval_recall@{k}"] = float(hit_rate_at_k(t2i, k).mean())
    for k in ks:
        out[f"text_retrieval_recall@{k}"] = float(hit_rate_at_k(i2t, k).mean())
    return out


def dcg_at_k(
    gains: ArrayLike, k: int = DCG_K, decimals: int | None = DCG_DECIMALS
) -> np.ndarray | float:
    """``Σ_{r=1..k} g_r / log2(r + 1)`` of ranked gains, rounded to ``decimals`` as in the
    reference (None: unrounded). ``gains`` is one list (returns a float) or ``(queries, K)``
    (returns one value per query); lists shorter than ``k`` just sum fewer terms."""
    g = np.asarray(gains, dtype=np.float64)
    if g.ndim not in (1, 2):
        raise ValueError(f"gains must be 1-D or 2-D, got shape {g.shape}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    g = g[..., :k]
    dcg = (g / np.log2(np.arange(2, g.shape[-1] + 2))).sum(axis=-1)
    if decimals is not None:
        dcg = np.round(dcg, decimals)
    return float(dcg) if g.ndim == 1 else dcg


def _unit(x: ArrayLike, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {x.shape}")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError(f"{name} row {int(np.argmin(norms))} is a zero vector")
    return x / norms


def relevance_gains(
    ranking: Ranking,
    query_embeddings: ArrayLike,
    item_embeddings: ArrayLike,
    k: int = DCG_K,
) -> np.ndarray:
    """Gains of the top ``k`` of ``ranking``: 1 for a relevant (ground-truth) item,
    otherwise the cosine between the query and the item under a *separate* relevance model
    (Hendriksen: sentence-transformers ``clip-ViT-B-32``; t2i: the perturbed query text vs
    images, i2t: the query image vs captions). Embeddings are L2-normalised here."""
    q = _unit(query_embeddings, "query_embeddings")
    g = _unit(item_embeddings, "item_embeddings")
    n_q = len(ranking.items)
    if len(q) != n_q or q.shape[1] != g.shape[1]:
        raise ValueError(f"{q.shape} query / {g.shape} item embeddings for {n_q} queries")
    items = ranking.items[:, :k]
    if items.size and items.max() >= len(g):
        raise ValueError(f"ranking refers to item {int(items.max())}; {len(g)} embeddings")
    cos = np.einsum("qd,qrd->qr", q, g[items])
    return np.where(ranking.relevant[:, :k], 1.0, cos)


def relevance_dcg(
    ranking: Ranking,
    query_embeddings: ArrayLike,
    item_embeddings: ArrayLike,
    k: int = DCG_K,
    decimals: int | None = DCG_DECIMALS,
) -> np.ndarray:
    """Per-query Hendriksen DCG@k (no nDCG normalisation): `dcg_at_k` of `relevance_gains`.
    The reference reports the mean over queries (not scaled by 100)."""
    gains = relevance_gains(ranking, query_embeddings, item_embeddings, k)
    return np.asarray(dcg_at_k(gains, k, decimals))


def split_labels(rsum_clean: ArrayLike, rsum_perturbed: ArrayLike) -> np.ndarray:
    """Per query ``"decreased"`` / ``"increased"`` / ``"unchanged"`` from
    ``diff = clean − perturbed`` (> 0 / < 0 / == 0, exact as in the reference). Both arrays
    hold the same queries in the same order (the reference joins on the query text)."""
    clean = np.asarray(rsum_clean, dtype=np.float64)
    pert = np.asarray(rsum_perturbed, dtype=np.float64)
    if clean.ndim != 1 or clean.shape != pert.shape:
        raise ValueError(f"rsum arrays of shapes {clean.shape} and {pert.shape}")
    if np.isnan(clean).any() or np.isnan(pert).any():
        raise ValueError("rsum contains NaN")
    diff = clean - pert
    return np.where(diff > 0, SPLITS[0], np.where(diff < 0, SPLITS[1], SPLITS[2]))


def robustness_splits(rsum_clean: ArrayLike, rsum_perturbed: ArrayLike) -> dict[str, float]:
    """Percent of queries whose ``rsum`` (R@1+R@5+R@10) decreased, increased or stayed
    unchanged under the perturbation (Hendriksen ``split_printer.py``); plus ``n_queries``.
    Percentages are NaN for no queries."""
    labels = split_labels(rsum_clean, rsum_perturbed)
    n = len(labels)
    out = {name: float((labels == name).mean() * 100) if n else float("nan")
           for name in SPLITS}
    out["n_queries"] = n
    return out


def mean_std_over_seeds(
    values: ArrayLike | Mapping[object, float],
) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """Mean and sample std (ddof=1) over seeds (axis 0); the std is NaN for one seed.

    ``values`` is one value per seed (a sequence, or a mapping seed → value), or an array
    ``(seeds, ...)`` for element-wise statistics. Same convention as the seed groups of
    `vlcomp.report.tables`, which apply it to whole table rows.
    """
    if isinstance(values, Mapping):
        values = list(values.values())
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 0 or len(v) == 0:
        raise ValueError("need at least one seed")
    mean = v.mean(axis=0)
    std = v.std(axis=0, ddof=1) if len(v) > 1 else np.full_like(mean, np.nan)
    if v.ndim == 1:
        return float(mean), float(std)
    return mean, std
