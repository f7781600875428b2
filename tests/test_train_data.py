"""Training data helpers."""

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.train.data import finest_captions, load_split


def test_finest_caption_is_the_longest():
    assert finest_captions([["a circle", "a red circle above a cross", "a cross"]]) == [
        ["a red circle above a cross"]
    ]


def test_load_split_stacks_images_with_their_captions(tmp_path):
    rows = []
    for k, colour in enumerate([(255, 0, 0), (0, 0, 255)]):
        path = tmp_path / f"{k}.png"
        Image.new("RGB", (8, 8), colour).save(path)
        rows.append({"image_id": f"i{k}", "path": str(path), "split": "train"})
    images = pd.DataFrame(rows)
    captions = pd.DataFrame({"image_id": ["i1", "i0", "i0"], "split": "train",
                             "text": ["blue", "red", "a red one"]})
    x, caps = load_split(images, captions, "train")
    assert x.shape == (2, 8, 8, 3) and x.dtype == np.uint8
    assert tuple(x[0, 0, 0]) == (255, 0, 0) and caps == [["red", "a red one"], ["blue"]]
    with pytest.raises(ValueError, match="images without captions"):
        load_split(images, captions[captions.image_id == "i0"], "train")
    x, caps = load_split(images, captions[captions.image_id == "i0"], "train", True)
    assert x.shape[0] == 1 and caps == [["red", "a red one"]]
    with pytest.raises(ValueError, match="no images in split 'val'"):
        load_split(images, captions, "val")
