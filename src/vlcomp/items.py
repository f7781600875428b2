"""The choice schema every benchmark table follows (DESIGN §4), below both the loaders of
released data (`vlcomp.data`) and the builders of benchmarks (`vlcomp.benchmarks`), and the
caption an image is queried by in retrieval and validation (`finest_index`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

CHOICE_COLUMNS = ("item_id", "subset", "image_ids", "texts", "protocol", "label", "tie_policy")
PROTOCOLS = ("i2t", "t2i", "pair")
TIE_POLICIES = ("strict", "lenient")


def make_items(rows: list[dict]) -> pd.DataFrame:
    """A benchmark table from item dicts, checked against the schema.

    Raises ValueError naming the first bad item (unknown protocol, bad label, duplicate id).
    """
    df = pd.DataFrame(rows)
    missing = [c for c in CHOICE_COLUMNS if c not in df.columns]
    if df.empty or missing:
        raise ValueError(f"benchmark has no items or lacks columns {missing}")
    dup = df.item_id[df.item_id.duplicated()]
    if len(dup):
        raise ValueError(f"duplicate item_id {dup.iloc[0]!r}")
    for row in df.itertuples():
        if row.protocol not in PROTOCOLS:
            raise ValueError(f"item {row.item_id!r}: unknown protocol {row.protocol!r}")
        if row.tie_policy not in TIE_POLICIES:
            raise ValueError(f"item {row.item_id!r}: unknown tie policy {row.tie_policy!r}")
        n = len(row.texts) if row.protocol == "i2t" else len(row.image_ids)
        if row.protocol == "pair":
            if len(row.texts) != 2 or len(row.image_ids) != 2:
                raise ValueError(f"item {row.item_id!r}: pair items need 2 images and 2 texts")
        elif not 0 <= row.label < n:
            raise ValueError(f"item {row.item_id!r}: label {row.label} out of range 0..{n - 1}")
    cols = list(CHOICE_COLUMNS) + [c for c in df.columns if c not in CHOICE_COLUMNS]
    return df[cols].reset_index(drop=True)


def finest_index(texts: Sequence[str]) -> int:
    """Position of the most detailed caption: the longest, ties going to the first.

    Retrieval uses it (validation and the retrieval benchmark): coarse captions such as
    "a circle and a square" fit many images, so retrieval with them measures the world's
    ambiguity rather than the model.
    """
    return max(range(len(texts)), key=lambda i: len(texts[i]))
