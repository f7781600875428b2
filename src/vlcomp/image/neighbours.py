"""Exact K-nearest-neighbour images by embedding cosine (NegCLIP's hard images, K=3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def nearest_neighbours(embeddings: np.ndarray, k: int, batch_size: int = 2048) -> np.ndarray:
    """Row ``i`` holds the indices of the ``k`` rows most cosine-similar to row ``i``.

    Exact search in batches (memory ``batch_size × N``); a row is never its own neighbour
    (other rows with identical embeddings can be). Rows are L2-normalised here. Ties are
    broken by the lower index, so the result is deterministic.
    """
    n = len(embeddings)
    if not 1 <= k < n:
        raise ValueError(f"k must be in 1..{n - 1} for {n} images, got {k}")
    x = np.asarray(embeddings, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError(f"row {int(np.argmin(norms))} has a zero embedding")
    x = x / norms
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
