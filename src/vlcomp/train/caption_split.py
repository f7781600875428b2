"""CLIP_COCO's train/validation split of the COCO 2017 train captions, as BiVLC makes it
(``CLIP_fine_tuning.py``: ``train_test_split(test_size=0.2, seed=42)`` over caption rows).

Its own module: it needs ``datasets`` (whose split function defines the rows), which the light
jobs that read `vlcomp.train.data` do not install.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def bivlc_caption_split(
    captions: pd.DataFrame, test_size: float = 0.2, seed: int = 42
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CLIP_COCO's split: caption rows in the COCO file's order (``annotation_index``) split
    by ``datasets``' ``train_test_split(test_size, seed)``, each part in its split order (an
    image's captions may fall on both sides, as in BiVLC)."""
    import datasets

    if "annotation_index" not in captions:
        raise ValueError("bivlc_captions needs the COCO captions file's order (a coco_captions "
                         "dataset; rebuild its tables)")
    ordered = captions.sort_values("annotation_index", kind="stable", ignore_index=True)
    index = datasets.Dataset.from_dict({"row": np.arange(len(ordered))})
    parts = index.train_test_split(test_size=test_size, seed=seed)
    return (ordered.iloc[parts["train"]["row"]].reset_index(drop=True),
            ordered.iloc[parts["test"]["row"]].reset_index(drop=True))
