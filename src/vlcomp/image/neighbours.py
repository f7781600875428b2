"""Exact K-nearest-neighbour images by embedding cosine (NegCLIP's hard images, K=3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

FAISS_MIN_ROWS = 50_000  # above this many images, "auto" searches with faiss


def nearest_neighbours(
    embeddings: np.ndarray, k: int, batch_size: int = 2048, backend: str = "auto"
) -> np.ndarray:
    """Row ``i`` holds the indices of the ``k`` rows most cosine-similar to row ``i``.

    Exact search either way: ``numpy`` in batches (memory ``batch_size × N``; ties broken by
    the lower index, so the result is deterministic) or ``faiss`` (an exact inner-product
    index, multi-threaded; for large galleries such as COCO's 118k images). ``auto`` picks
    faiss above `FAISS_MIN_ROWS` rows. A row is never its own neighbour (other rows with
    identical embeddings can be). Rows are L2-normalised here.
    """
    n = len(embeddings)
    if not 1 <= k < n:
        raise ValueError(f"k must be in 1..{n - 1} for {n} images, got {k}")
    if backend not in ("auto", "numpy", "faiss"):
        raise ValueError(f"backend must be auto, numpy or faiss, got {backend!r}")
    x = np.asarray(embeddings, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError(f"row {int(np.argmin(norms))} has a zero embedding")
    x = np.ascontiguousarray(x / norms)
    if backend == "faiss" or (backend == "auto" and n > FAISS_MIN_ROWS):
        return _faiss_neighbours(x, k, batch_size)
    out = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, batch_size):
        sims = x[start : start + batch_size] @ x.T
        rows = np.arange(len(sims))
        sims[rows, start + rows] = -np.inf
        # a stable sort keeps equal similarities in index order
        out[start : start + len(sims)] = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return out


def neighbour_table(image_ids: Sequence[str], embeddings: np.ndarray, k: int) -> pd.DataFrame:
    """``image_id`` and ``neighbour_ids`` (nearest first), the pairs file of DESIGN §4."""
    if len(image_ids) != len(embeddings):
        raise ValueError(f"{len(image_ids)} ids for {len(embeddings)} embeddings")
    idx = nearest_neighbours(embeddings, k)
    ids = np.asarray(image_ids, dtype=object)
    return pd.DataFrame({"image_id": list(image_ids), "neighbour_ids": [list(ids[r]) for r in idx]})


def _faiss_neighbours(x: np.ndarray, k: int, batch_size: int) -> np.ndarray:
    """Exact search with a flat inner-product index; asks for k+1 and drops the row itself."""
    import faiss

    index = faiss.IndexFlatIP(x.shape[1])
    index.add(x)
    out = np.empty((len(x), k), dtype=np.int64)
    for start in range(0, len(x), batch_size):
        _, found = index.search(x[start : start + batch_size], k + 1)
        for r, row in enumerate(found):
            own = start + r
            kept = [int(j) for j in row if j != own]
            out[own] = kept[:k]
    return out
