"""Training data helpers."""

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.train.data import (
    align_negatives,
    finest_captions,
    load_split,
    negatives_by_caption,
    neighbour_indices,
)


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
    data = load_split(images, captions.assign(caption_id=["c0", "c1", "c2"]), "train")
    x, caps = data.images, data.captions
    assert x.shape == (2, 8, 8, 3) and x.dtype == np.uint8
    assert tuple(x[0, 0, 0]) == (255, 0, 0) and caps == [["red", "a red one"], ["blue"]]
    assert data.image_ids == ["i0", "i1"] and data.caption_ids == [["c1", "c2"], ["c0"]]
    with pytest.raises(ValueError, match="images without captions"):
        load_split(images, captions[captions.image_id == "i0"], "train")
    data = load_split(images, captions[captions.image_id == "i0"], "train", True)
    assert data.images.shape[0] == 1 and data.captions == [["red", "a red one"]]
    with pytest.raises(ValueError, match="no images in split 'val'"):
        load_split(images, captions, "val")


def test_negatives_in_both_layouts_align_with_captions():
    wide = pd.DataFrame({"caption_id": ["c0", "c1"], "negatives": [["n0", "n1"], []]})
    long = pd.DataFrame({"caption_id": ["c0", "c0", "c2"], "subset": ["a", "b", "a"],
                         "negative": ["x", "y", "z"]})
    assert negatives_by_caption(wide) == {"c0": ["n0", "n1"], "c1": []}
    assert negatives_by_caption(long) == {"c0": ["x", "y"], "c2": ["z"]}
    assert align_negatives([["c0", "c2"], ["c9"]], negatives_by_caption(long)) == [
        [["x", "y"], ["z"]], [[]]
    ]
    with pytest.raises(ValueError, match="'negatives' or 'negative'"):
        negatives_by_caption(pd.DataFrame({"caption_id": ["c0"]}))


def test_neighbour_indices_keep_training_images_only():
    pairs = pd.DataFrame({"image_id": ["a", "b", "c"],
                          "neighbour_ids": [["b", "x"], ["a", "c"], ["x", "y"]]})
    assert neighbour_indices(["a", "b", "c"], pairs) == [[1], [0, 2], []]
    with pytest.raises(ValueError, match="lacks 1 training images"):
        neighbour_indices(["a", "d"], pairs)
