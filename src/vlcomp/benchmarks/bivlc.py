"""BiVLC-style items: each SugarCrepe-style item plus its negative image (2 × 2 pair)."""

from __future__ import annotations

import pandas as pd

from vlcomp.benchmarks.schema import make_items


def bivlc_items(sugarcrepe: pd.DataFrame, negatives: pd.DataFrame) -> pd.DataFrame:
    """Pair items from SugarCrepe-style items and the kept rows of a generation manifest.

    ``negatives`` has image_id, item_id (the SugarCrepe item it was generated for) and kept.
    Items whose positive caption is still true of the negative image are dropped, as BiVLC's
    annotators dropped ambiguous pairs, except for ``add`` items, where the shorter positive
    stays true of the richer negative image by construction (as in BiVLC's add category).
    """
    kept = negatives[negatives.kept]
    neg_of = dict(zip(kept.item_id, kept.image_id, strict=True))
    rows = []
    for item in sugarcrepe.itertuples():
        if item.item_id not in neg_of:
            continue
        if item.type != "add" and not item.positive_false_on_negative:
            continue
        rows.append({
            "item_id": item.item_id, "subset": item.subset,
            "image_ids": [item.image_ids[0], neg_of[item.item_id]],
            "texts": list(item.texts), "protocol": "pair", "label": 0, "tie_policy": "strict",
            "type": item.type, "subtype": item.subtype,
        })
    return make_items(rows)
