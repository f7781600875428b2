"""Score matrices of blind (text-only) baselines: every image of an item gets the same
score for a text, so only image->text choices can be right (image->text accuracy, BiVLC's
I2T, Winoground's text score); image->text ties never count as right under the strict
policy, so their text->image scores stay at zero."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd


def blind_item_scores(items: pd.DataFrame, text_scores: Mapping[str, float]) -> pd.DataFrame:
    """``item_id`` and ``scores`` (n_images × n_texts, each row the texts' scores), the
    frame `vlcomp.score.matrices.score_items` writes. KeyError names an unscored text."""
    rows = []
    for item in items.itertuples():
        missing = [t for t in item.texts if t not in text_scores]
        if missing:
            raise KeyError(f"item {item.item_id!r}: text {missing[0]!r} has no blind score")
        row = np.array([text_scores[t] for t in item.texts], dtype=np.float64)
        rows.append({"item_id": item.item_id,
                     "scores": np.tile(row, (len(item.image_ids), 1)).tolist()})
    return pd.DataFrame(rows)
