"""How fast pictures become model input on this machine's CPUs: JPEG decoding, resizing and
normalising through each recipe the models use (open_clip's 224 px, BLIP's 384 px
processor, X-VLM's 384 px transform), in a `DataLoader` with 0, 1, 2, … worker processes, as
`vlcomp.score.embeddings.embed_image_set` reads image sets. No model runs: the rate is what
a GPU's image encoder would be fed at most.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

COCO_SIZE = (640, 480)  # COCO's typical picture


def write_pictures(folder: Path, n: int, size: tuple[int, int] = COCO_SIZE,
                   seed: int = 0, distinct: int = 64) -> list[str]:
    """``n`` JPEGs (quality 90) of smooth seeded colour fields with grain, the size of a COCO
    picture: decoding and resizing them costs what a photograph's does. ``distinct`` of them
    are drawn; the rest repeat their bytes under other names (the decoding is the same work,
    the writing much less)."""
    rng = np.random.default_rng(seed)
    paths: list[str] = []
    w, h = size
    encoded: list[bytes] = []
    for k in range(n):
        path = folder / f"p{k:05d}.jpg"
        if k < distinct:
            coarse = rng.integers(0, 255, (6, 8, 3), dtype=np.uint8)
            field = np.asarray(Image.fromarray(coarse).resize((w, h), Image.BICUBIC), np.int16)
            grain = rng.integers(-12, 13, (h, w, 3), dtype=np.int16)
            Image.fromarray(np.clip(field + grain, 0, 255).astype(np.uint8)).save(
                path, quality=90)
            encoded.append(path.read_bytes())
        else:
            path.write_bytes(encoded[k % distinct])
        paths.append(str(path))
    return paths


def recipes() -> dict[str, Callable[[Image.Image], Any]]:
    """The preprocessing recipes, by name: what each model family's workers run."""
    import open_clip
    from transformers import BlipImageProcessor

    from vlcomp.models.pixel_loader import AsRGB, DecodedPicture, ProcessorPixels
    from vlcomp.models.xvlm import image_transform

    return {"open_clip 224 px": open_clip.image_transform(224, is_train=False),
            "BLIP 384 px (processor)": ProcessorPixels(BlipImageProcessor()),
            "X-VLM 384 px": AsRGB(image_transform(384)),
            # what workers do when a transformers processor resizes on the GPU
            "decode only (processor on the GPU)": DecodedPicture()}


def loader_rate(paths: Sequence[str], transform: Callable, workers: int,
                batch_size: int = 64) -> float:
    """Pictures a second through a `DataLoader` with ``workers`` processes (their start
    included), as the embedding jobs read them."""
    from torch.utils.data import DataLoader

    from vlcomp.image.tensor_shuffle import Shuffling
    from vlcomp.models.pixel_loader import DecodedPicture, as_list
    from vlcomp.score.embeddings import ImageFiles

    decoded = isinstance(transform, DecodedPicture)
    files = ImageFiles(paths, [None] * len(paths),
                       transform if decoded else Shuffling(transform))
    start = time.perf_counter()
    count = sum(len(batch) for batch in DataLoader(files, batch_size=batch_size,
                                                   num_workers=workers,
                                                   collate_fn=as_list if decoded else None))
    return count / (time.perf_counter() - start)


def pixel_rates(n: int = 512, workers: Sequence[int] = (0, 1, 2),
                repeats: int = 2) -> list[dict[str, Any]]:
    """One row per recipe and worker count: the best of ``repeats`` rates."""
    import torch

    torch.set_num_threads(1)  # as in a worker; the main process only gathers
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        paths = write_pictures(Path(folder), n)
        for name, transform in recipes().items():
            for w in workers:
                rate = max(loader_rate(paths, transform, w) for _ in range(repeats))
                rows.append({"recipe": name, "workers": w, "images": n,
                             "images_per_s": round(rate, 1),
                             "per_worker": round(rate / max(w, 1), 1)})
    return rows
