"""Image–text retrieval benchmarks: a gallery of images and text queries that each match one.

Files (DESIGN §4): ``gallery.parquet`` (image_id) and ``queries.parquet`` (query_id,
image_id, text). Retrieval runs both ways over the whole gallery (`vlcomp.metrics.retrieval`).
"""

from __future__ import annotations

import pandas as pd

from vlcomp.train.data import finest_index


def finest_caption_queries(captions: pd.DataFrame, image_ids: list[str]) -> pd.DataFrame:
    """One query per image: its most detailed caption (`finest_index`, as in validation)."""
    by_image = {k: g for k, g in captions.groupby("image_id", sort=False)}
    missing = [i for i in image_ids if i not in by_image]
    if missing:
        raise ValueError(f"{len(missing)} gallery images have no caption, e.g. {missing[:3]}")
    rows = []
    for image_id in image_ids:
        group = by_image[image_id]
        texts = [str(t) for t in group.text]
        k = finest_index(texts)
        rows.append({"query_id": str(group.caption_id.iloc[k]), "image_id": image_id,
                     "text": texts[k]})
    return pd.DataFrame(rows, columns=["query_id", "image_id", "text"])
