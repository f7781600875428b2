"""BiVLC Table 5: TROHN-Text per-category counts.

**Table 5** counts TROHN-Text instances (one image, a caption and a negative caption) per
SugarCrepe category. BiVLC's ``TROHN_Text_generation.py`` loops over the seven templates and
writes one file per category, ``TROHN-TEXT_{REPLACE_OBJ,...}.csv`` (``image_id, caption,
negative_caption``), then concatenates them without a category column. Those files are not
released; the hub dataset ``imirandam/TROHN-Text`` has only ``image_id, caption,
negative_caption`` and was split 80/20 at random, so a released row's category cannot be
recovered: for it only totals (per split) are computed and the per-category cells are the
paper's. vlcomp's own TROHN-style negatives (`vlcomp.text.llm_negatives`,
`vlcomp.text.world_negatives`: ``caption_id, image_id, text, subset, negative``) carry the
category in ``subset``.

Table 1 (benchmark sizes) is `vlcomp.benchmarks.bivlc_table1`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from vlcomp.benchmarks.bivlc import CATEGORIES, category_columns
from vlcomp.release_sizes import TROHN_ROWS

SUBSETS = tuple(f"{t}_{s}" for t, s in CATEGORIES)  # replace_obj, ..., add_att
TABLE5_COLUMNS = (*category_columns(), "TOTAL")
INSTANCES_ROW = "# instances"
GENERATED_ROW = "# generated"
KEPT_ROW = "% kept"
# BiVLC Table 5 (after the template filter) and §5.1 (591,753 COCO 2017 train captions, one
# generation per caption and category: 4,142,271 before the filter).
PAPER_TABLE5 = (570_325, 571_609, 576_101, 333_705, 429_163, 584_077, 587_866, 3_652_846)
PAPER_GENERATED_PER_CATEGORY = 591_753
PAPER_GENERATED_TOTAL = 4_142_271
RELEASE_SPLITS = TROHN_ROWS["trohn_text"]  # hub rows per split: train 2,922,276 / val 730,570
TYPE_NOT_DERIVABLE = (
    "category not derivable: the released rows have only image_id, caption, negative_caption "
    "(BiVLC concatenated its per-category TROHN-TEXT_{SUBTYPE}.csv files without a category "
    "column and split the instances 80/20 at random); per-category counts are the paper's")
# BiVLC's per-category generation files, in its concatenation order
GENERATION_FILES = {f"TROHN-TEXT_{subset.upper()}.csv": subset for subset in SUBSETS}



def row_categories(rows: pd.DataFrame, where: str = "rows") -> pd.Series | None:
    """Each row's category (``replace_obj`` ...) from ``subset`` or ``type`` + ``subtype``;
    None when the rows carry neither (the hub release). An unknown value is an error naming
    the first such row."""
    if "subset" in rows.columns:
        values = rows["subset"].astype(str).str.lower()
    elif {"type", "subtype"} <= set(rows.columns):
        values = (rows["type"].astype(str) + "_" + rows["subtype"].astype(str)).str.lower()
    else:
        return None
    bad = values[~values.isin(SUBSETS)]
    if len(bad):
        raise ValueError(f"{where}: row {bad.index[0]} has unknown category {bad.iloc[0]!r}; "
                         f"known: {', '.join(SUBSETS)}")
    return values


def read_generation_files(folder: str | Path) -> pd.DataFrame:
    """BiVLC's per-category generation outputs (``TROHN-TEXT_{SUBTYPE}.csv`` in ``folder``,
    ``image_id, caption, negative_caption``) as one table with a ``subset`` column, in BiVLC's
    concatenation order; files that are absent are skipped, none at all is an error."""
    folder = Path(folder)
    frames = []
    for name, subset in GENERATION_FILES.items():
        path = folder / name
        if not path.is_file():
            continue
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        missing = {"image_id", "caption", "negative_caption"} - set(frame.columns)
        if missing:
            raise ValueError(f"{path}: lacks column(s) {sorted(missing)}")
        frames.append(frame.assign(subset=subset))
    if not frames:
        raise FileNotFoundError(f"{folder}: none of {', '.join(GENERATION_FILES)}")
    return pd.concat(frames, ignore_index=True)


def _count_row(categories: pd.Series | None, n_rows: int) -> list[Any]:
    if categories is None:
        return [pd.NA] * len(SUBSETS) + [n_rows]
    counts = categories.value_counts()
    cells = [int(counts.get(s, 0)) for s in SUBSETS]
    return [*cells, sum(cells)]


def trohn_text_counts(rows: pd.DataFrame, split_column: str = "split",
                      captions: int | None = None, with_paper: bool = True) -> pd.DataFrame:
    """BiVLC Table 5 for ``rows``: columns ``REPLACE OBJ`` ... ``ADD ATT``, ``TOTAL``.

    Rows: ``# instances`` (per split first, ``# instances (train)``, when ``split_column``
    is present); with ``captions`` (captions prompted, once per category) ``# generated``
    and ``% kept`` (2 decimals); with ``with_paper`` the paper's ``(paper)`` rows. Without a
    category column (the hub release) the category cells are NA and ``attrs["note"]`` says
    why.
    """
    categories = row_categories(rows)
    lines: dict[str, list[Any]] = {}
    if split_column in rows.columns:
        for split in rows[split_column].astype(str).unique():
            mask = (rows[split_column].astype(str) == split).to_numpy()
            part = None if categories is None else categories[mask]
            lines[f"{INSTANCES_ROW} ({split})"] = _count_row(part, int(mask.sum()))
    lines[INSTANCES_ROW] = _count_row(categories, len(rows))
    if captions is not None:
        if captions <= 0:
            raise ValueError(f"captions must be positive, got {captions}")
        lines[GENERATED_ROW] = [captions] * len(SUBSETS) + [captions * len(SUBSETS)]
        lines[KEPT_ROW] = [pd.NA if pd.isna(n) else round(100.0 * n / g, 2)
                           for n, g in zip(lines[INSTANCES_ROW], lines[GENERATED_ROW],
                                           strict=True)]
    if with_paper:
        lines[f"{INSTANCES_ROW} (paper)"] = list(PAPER_TABLE5)
        lines[f"{GENERATED_ROW} (paper)"] = ([PAPER_GENERATED_PER_CATEGORY] * len(SUBSETS)
                                             + [PAPER_GENERATED_TOTAL])
    table = pd.DataFrame.from_dict(lines, orient="index", columns=list(TABLE5_COLUMNS),
                                   dtype=object)
    table.index.name = "row"
    if categories is None:
        table.attrs["note"] = TYPE_NOT_DERIVABLE
    return table


def release_statistics(rows: pd.DataFrame, split: str | None = None) -> dict[str, Any]:
    """What the released TROHN-Text rows do tell: row count (and the published count of
    ``split``), distinct images and (image, caption) pairs, how many negatives each such pair
    has (at most one per category was generated), exact duplicate rows and negatives equal to
    their caption. Takes the hub's columns or `release_instances`' (``negative``)."""
    negative = "negative_caption" if "negative_caption" in rows.columns else "negative"
    missing = {"image_id", "caption", negative} - set(rows.columns)
    if missing:
        raise ValueError(f"TROHN-Text rows lack column(s) {sorted(missing)}")
    keys = rows[["image_id", "caption"]].astype(str)
    per_caption = keys.value_counts()
    out: dict[str, Any] = {
        "rows": len(rows),
        "images": int(keys.image_id.nunique()),
        "captions": len(per_caption),
        "negatives_per_caption": {int(k): int(v) for k, v in
                                  sorted(Counter(per_caption.to_numpy().tolist()).items())},
        "duplicate_rows": int(rows[["image_id", "caption", negative]].astype(str)
                              .duplicated().sum()),
        "negative_equals_caption": int((rows[negative].astype(str).str.strip()
                                        == rows["caption"].astype(str).str.strip()).sum()),
        "categories": TYPE_NOT_DERIVABLE if row_categories(rows) is None else "derivable",
    }
    if split is not None:
        if split not in RELEASE_SPLITS:
            raise ValueError(f"unknown TROHN-Text split {split!r}; known: {list(RELEASE_SPLITS)}")
        out["published_rows"] = RELEASE_SPLITS[split]
    return out
