"""Score matrices S[image, text] per benchmark item from cached embeddings (cosine)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _rows(ids: list, row: dict[str, int], item_id: str, what: str) -> list[int]:
    try:
        return [row[i] for i in ids]
    except KeyError as err:
        raise KeyError(f"item {item_id!r}: {what} {err} has no embedding") from err


def score_items(
    items: pd.DataFrame,
    image_emb: np.ndarray,
    image_row: dict[str, int],
    text_emb: np.ndarray,
    text_row: dict[str, int],
) -> pd.DataFrame:
    """One row per item: ``item_id`` and ``scores`` (list of lists, n_images × n_texts).

    Items of the same shape are scored together: one gather of their embeddings and one
    batched matrix product per shape (a benchmark has one to three shapes), no per-item loop
    over the model's outputs.
    """
    item_ids = items.item_id.tolist()
    image_rows = [_rows(list(ids), image_row, k, "image")
                  for k, ids in zip(item_ids, items.image_ids, strict=True)]
    text_rows = [_rows(list(texts), text_row, k, "text")
                 for k, texts in zip(item_ids, items.texts, strict=True)]
    shapes: dict[tuple[int, int], list[int]] = {}
    for k, (i, t) in enumerate(zip(image_rows, text_rows, strict=True)):
        shapes.setdefault((len(i), len(t)), []).append(k)
    scores: list = [None] * len(item_ids)
    for members in shapes.values():
        images = image_emb[np.array([image_rows[k] for k in members], dtype=np.intp)]
        texts = text_emb[np.array([text_rows[k] for k in members], dtype=np.intp)]
        block = np.matmul(images, texts.transpose(0, 2, 1)).astype(np.float64)
        for k, matrix in zip(members, block, strict=True):
            scores[k] = matrix.tolist()
    return pd.DataFrame({"item_id": item_ids, "scores": scores})
