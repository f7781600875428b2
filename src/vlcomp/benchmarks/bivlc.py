"""BiVLC construction: caption formatting, 2 × 2 instances and per-category counts (Table 1).

An instance is a SugarCrepe item (positive image, positive and negative caption) plus the
negative image chosen for it. Which items survive, and with which image, is decided by a
*selection* table (one row per item: ``item_id``, ``image_id`` of the negative image,
``keep``): from the automatic filters of `vlcomp.generate.filters` for generated images, or
from the oracle for the world's exactly rendered negatives.
"""

from __future__ import annotations

import pandas as pd

from vlcomp.items import make_items

# BiVLC Table 1's categories, in the paper's column order.
CATEGORIES = (("replace", "obj"), ("replace", "att"), ("replace", "rel"),
              ("swap", "obj"), ("swap", "att"), ("add", "obj"), ("add", "att"))


def format_caption(text: str) -> str:
    """BiVLC step 1: strip, first letter upper case and the rest lower case, final period.

    This is what the paper says ("start with capitals and continue in lower case") and what
    the released data holds: all 2,933 BiVLC caption pairs equal their SugarCrepe source
    pairs formatted this way (``tests/test_bivlc_construction.py``; "A DJ" → "A dj", "TV" →
    "tv"). The lambda in ``BiVLC_img_generation.py`` reads differently (and strips only the
    tail); the released captions were not made by it.
    """
    text = text.strip()
    if not text:
        raise ValueError("cannot format an empty caption")
    text = text.capitalize()
    return text if text.endswith(".") else text + "."


def rendered_selection(sugarcrepe: pd.DataFrame, manifest: pd.DataFrame) -> pd.DataFrame:
    """Selection from the world's exact renders of the edited scenes.

    The render is kept when the negative caption is true of it, and the item when the
    positive caption is false of it, except for ``add`` items, where the shorter positive
    stays true of the richer image by construction (BiVLC's ADD category).
    """
    rendered = manifest.set_index("item_id")
    rows = []
    for item in sugarcrepe.itertuples():
        if item.item_id not in rendered.index:
            continue
        neg = rendered.loc[item.item_id]
        keep = bool(neg.oracle_prompt_true) and (
            item.type == "add" or bool(item.positive_false_on_negative))
        rows.append({"item_id": item.item_id, "image_id": neg.image_id, "keep": keep})
    return pd.DataFrame(rows, columns=["item_id", "image_id", "keep"])


def bivlc_items(sugarcrepe: pd.DataFrame, selection: pd.DataFrame) -> pd.DataFrame:
    """Pair items (choice schema, protocol ``pair``) for the kept rows of ``selection``.

    Texts are formatted with `format_caption`, so natural and synthetic captions look alike
    (world captions are already in that form).
    """
    missing = {"item_id", "image_id", "keep"} - set(selection)
    if missing:
        raise ValueError(f"selection table lacks column(s) {sorted(missing)}")
    kept = selection[selection.keep.astype(bool)]
    neg_of = dict(zip(kept.item_id, kept.image_id, strict=True))
    rows = []
    for item in sugarcrepe.itertuples():
        if item.item_id not in neg_of:
            continue
        rows.append({
            "item_id": item.item_id, "subset": item.subset,
            "image_ids": [item.image_ids[0], neg_of[item.item_id]],
            "texts": [format_caption(t) for t in item.texts[:2]], "protocol": "pair",
            "label": 0, "tie_policy": "strict", "type": item.type, "subtype": item.subtype,
        })
    return make_items(rows)


REMOVED_ROW = "% of SugarCrepe items removed"  # BiVLC Table 1's row of filter removal rates
# BiVLC Table 1 as published (COCO): SugarCrepe I2T examples and BiVLC retrieval examples.
PAPER_TABLE1 = {
    "SugarCrepe (paper)": [1652, 788, 1406, 246, 666, 2062, 692, 7512],
    "BiVLC (paper)": [4800, 1748, 1848, 324, 1112, 1596, 304, 11732],
}


def category_columns() -> list[str]:
    """BiVLC Table 1's category columns (``REPLACE OBJ``, ...), without ``Total``."""
    return [f"{t.upper()} {s.upper()}" for t, s in CATEGORIES]


def category_counts(sugarcrepe: pd.DataFrame, bivlc: pd.DataFrame) -> pd.DataFrame:
    """BiVLC Table 1: retrieval examples per category and in total.

    A SugarCrepe item is one image-to-text example; a BiVLC instance is four (two I2T, two
    T2I). Two more rows give the instance counts and the share of SugarCrepe items the
    filters removed (BiVLC removed 61 %); the paper's two rows follow for reference.
    """
    def per_category(frame: pd.DataFrame) -> list[int]:
        counts = frame.groupby(["type", "subtype"]).size()
        return [int(counts.get(c, 0)) for c in CATEGORIES]

    columns = category_columns()
    sc, bv = per_category(sugarcrepe), per_category(bivlc)
    removed = [round(100.0 * (1 - b / s), 2) if s else float("nan")
               for s, b in zip(sc, bv, strict=True)]
    total_removed = round(100.0 * (1 - sum(bv) / sum(sc)), 2) if sum(sc) else float("nan")
    table = pd.DataFrame(
        [[*sc, sum(sc)], [*(4 * b for b in bv), 4 * sum(bv)], [*bv, sum(bv)],
         [*removed, total_removed], *PAPER_TABLE1.values()],
        index=["SugarCrepe-style (I2T examples)", "BiVLC-style (I2T + T2I examples)",
               "BiVLC-style instances", REMOVED_ROW, *PAPER_TABLE1],
        columns=[*columns, "Total"],
        dtype=object,  # counts stay integers beside the percentages
    )
    table.index.name = "dataset"
    return table
