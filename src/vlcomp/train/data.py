"""In-memory training data for contrastive pretraining: image arrays and caption lists."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PIL import Image


def load_split(
    images: pd.DataFrame, captions: pd.DataFrame, split: str, drop_uncaptioned: bool = False
) -> tuple[np.ndarray, list[list[str]]]:
    """Images of ``split`` as an (N, H, W, 3) uint8 array and each image's captions.

    Images without captions are an error, or are left out with ``drop_uncaptioned`` (when
    captions were filtered, e.g. to some templates).
    """
    imgs = images[images.split == split].sort_values("image_id")
    by_image = captions[captions.split == split].groupby("image_id").text.apply(list)
    if drop_uncaptioned:
        imgs = imgs[imgs.image_id.isin(by_image.index)]
    if imgs.empty:
        raise ValueError(f"no images in split {split!r}")
    missing = [i for i in imgs.image_id if i not in by_image.index]
    if missing:
        raise ValueError(f"split {split!r}: images without captions, e.g. {missing[:3]}")
    arrays = []
    for path in imgs.path:
        with Image.open(path) as img:
            arrays.append(np.asarray(img.convert("RGB"), dtype=np.uint8))
    return np.stack(arrays), [list(by_image[i]) for i in imgs.image_id]


def finest_captions(captions: list[list[str]]) -> list[list[str]]:
    """Each image's most detailed caption (the longest; ties go to the first) as a one-item
    list, for validation retrieval: coarse captions such as "a circle and a square" fit many
    images, so retrieval with them measures the world's ambiguity rather than the model."""
    return [[max(caps, key=len)] for caps in captions]
