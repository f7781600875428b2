"""Score matrices S[image, text] per benchmark item from cached embeddings (cosine)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def score_items(
    items: pd.DataFrame,
    image_emb: np.ndarray,
    image_row: dict[str, int],
    text_emb: np.ndarray,
    text_row: dict[str, int],
) -> pd.DataFrame:
    """One row per item: ``item_id`` and ``scores`` (list of lists, n_images × n_texts)."""
    out = []
    for item in items.itertuples():
        try:
            rows = [image_row[i] for i in item.image_ids]
        except KeyError as err:
            raise KeyError(f"item {item.item_id!r}: image {err} has no embedding") from err
        cols = [text_row[t] for t in item.texts]
        s = image_emb[rows] @ text_emb[cols].T
        out.append({"item_id": item.item_id, "scores": s.astype(np.float64).tolist()})
    return pd.DataFrame(out)
