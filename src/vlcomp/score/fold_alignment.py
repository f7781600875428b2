"""A folded retrieval job's reference order (``fold_order: karpathy_json``): Karpathy's file
read by `vlcomp.data.karpathy.karpathy_fold_order`, the job's gallery matched onto it by
`vlcomp.benchmarks.coco_folds.align_gallery` (queries by their raw captions)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.benchmarks.coco_folds import FoldAlignment, align_gallery
from vlcomp.data.karpathy import karpathy_fold_order


def gallery_alignment(order_file: str | Path, gallery_ids: Sequence[str],
                      query_ids: Sequence[str], captions: pd.DataFrame,
                      links: np.ndarray) -> FoldAlignment:
    """`align_gallery` of a retrieval benchmark against Karpathy's file, its queries matched
    by their raw captions (``captions``: caption_id, text; queries are caption ids), not the
    preprocessed query texts."""
    raw = dict(zip(captions.caption_id.astype(str), captions.text.astype(str), strict=True))
    missing = [q for q in query_ids if str(q) not in raw]
    if missing:
        raise ValueError(f"queries without a caption: {missing[:3]}")
    order = karpathy_fold_order(order_file)
    return align_gallery(order, [str(i) for i in gallery_ids],
                         [raw[str(q)] for q in query_ids], links)


def fold_alignment(inputs: Any, fold_file: str, gallery: pd.DataFrame, queries: pd.DataFrame,
                   links: np.ndarray) -> FoldAlignment | None:
    """A folded retrieval job's alignment: `gallery_alignment` when its inputs name the
    reference folder (``fold_order``, with ``captions``), else None (gallery order)."""
    folder = getattr(inputs, "fold_order", None)
    if not folder:
        return None
    from vlcomp.io import read_parquet

    return gallery_alignment(Path(folder) / fold_file, gallery.image_id.tolist(),
                             queries.query_id.tolist(), read_parquet(inputs.captions), links)
