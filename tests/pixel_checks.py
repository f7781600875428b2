"""A check shared by the image-embedding families: image sets read through the scorer's
`DataLoader` (pictures preprocessed in worker processes) give the embeddings of the whole
batch preprocessed at once (the reference the caller computes), worker count aside."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from vlcomp.image.shuffle_views import ShuffleSpec, view_path
from vlcomp.score.embeddings import embed_image_set, open_image

SIZES = ((40, 30), (64, 64), (23, 51), (80, 45), (33, 33))


def image_set(folder: Path) -> pd.DataFrame:
    """Five JPEGs of other sizes, one read as a crop, one as ARO's shuffled view."""
    rng = np.random.default_rng(0)
    paths = []
    for k, (w, h) in enumerate(SIZES):
        path = folder / f"im{k}.jpg"
        Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(path)
        paths.append(str(path))
    paths.append(view_path(paths[1], ShuffleSpec("shuffle_rows", 0, "im1")))
    boxes = [None, None, [2.0, 3.0, 15.0, 20.0], None, None, None]
    return pd.DataFrame({"path": paths, "bbox": pd.Series(boxes, dtype=object)})


def batch_processor_reference(processor, encode: Callable) -> Callable:
    """The reference of a transformers family: ``processor`` on the whole batch of pictures,
    ARO's shuffles on its tensor, then ``encode(pixels)`` (image features), normalised."""
    import torch

    from vlcomp.image.tensor_shuffle import shuffled_pixels

    def reference(pictures: list[Image.Image]) -> np.ndarray:
        pixels = processor(images=pictures, return_tensors="pt").pixel_values
        with torch.no_grad():
            features = encode(shuffled_pixels(pixels, pictures))
        return torch.nn.functional.normalize(features, dim=-1).numpy()

    return reference


def assert_loader_matches(scorer, folder: Path,
                          reference: Callable[[list[Image.Image]], np.ndarray],
                          processor: object | None = None) -> None:
    """`embed_image_set` with 0 and 2 workers equals ``reference`` of the opened pictures
    (batches of 2, as the loader's); with ``processor``, also where it runs on the device
    (workers decode only), as it does on a GPU."""
    rows = image_set(folder)
    pictures = [open_image(p, b) for p, b in zip(rows.path, rows.bbox, strict=True)]
    expected = np.concatenate([reference(pictures[s : s + 2]) for s in range(0, 6, 2)])
    alone = embed_image_set(scorer, rows, batch_size=2, workers=0)
    pooled = embed_image_set(scorer, rows, batch_size=2, workers=2)
    np.testing.assert_array_equal(alone, pooled)
    # another batch size: the same embeddings up to float rounding
    np.testing.assert_allclose(embed_image_set(scorer, rows, batch_size=4), alone, atol=1e-6)
    np.testing.assert_allclose(alone, expected, atol=1e-6)
    np.testing.assert_allclose(scorer.embed_images(pictures, batch_size=2), expected, atol=1e-6)
    assert not np.allclose(alone[1], alone[5])  # the shuffled view is another picture
    if processor is not None:
        scorer._device_processor = lambda: processor  # as on a GPU, here on the CPU
        try:
            decoded = embed_image_set(scorer, rows, batch_size=2, workers=2)
            in_process = scorer.embed_images(pictures, batch_size=2)
        finally:
            del scorer._device_processor
        np.testing.assert_array_equal(decoded, alone)
        np.testing.assert_array_equal(in_process, alone)
