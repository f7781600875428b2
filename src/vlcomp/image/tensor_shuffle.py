"""ARO's image shuffles of a preprocessed tensor (`vlcomp.image.shuffle_views` says where
they apply).

``torch.nn.functional.unfold`` with kernel and stride of ``H // n`` rows (rows), ``W // n``
columns (columns) or both with ``n = 3`` (patches) cuts ``n`` or ``n²`` equal blocks; they
are permuted and folded back, and every pixel the blocks do not cover is 0 in the
normalised tensor. The permutation comes from the picture's own seeded generator
(`vlcomp.seeding.stable_rng` of the perturbation, seed and image id), not torch's global one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from PIL import Image

from vlcomp.image.shuffle import N_COLS, N_PATCH_SIDE, N_ROWS
from vlcomp.image.shuffle_views import SHUFFLE_INFO, ShuffleSpec
from vlcomp.seeding import stable_rng

GRIDS = {"shuffle_rows": (N_ROWS, 1), "shuffle_columns": (1, N_COLS),
         "shuffle_patches": (N_PATCH_SIDE, N_PATCH_SIDE)}


def permutation(spec: ShuffleSpec) -> list[int]:
    """The picture's block order: ``out[k] = in[order[k]]``."""
    rows, cols = GRIDS[spec.name]
    rng = stable_rng("image", spec.name, spec.seed, spec.image_id)
    return [int(k) for k in rng.permutation(rows * cols)]


def shuffle_tensor(pixels: torch.Tensor, spec: ShuffleSpec) -> torch.Tensor:
    """A ``C × H × W`` tensor with its blocks permuted as ARO's unfold / fold permute them;
    pixels outside the ``H // n`` × ``W // m`` blocks are 0."""
    if spec.name not in GRIDS:
        raise ValueError(f"unknown image shuffle {spec.name!r} (one of {sorted(GRIDS)})")
    if pixels.ndim != 3:
        raise ValueError(f"expected a C x H x W tensor, got shape {tuple(pixels.shape)}")
    rows, cols = GRIDS[spec.name]
    _, height, width = pixels.shape
    bh, bw = height // rows, width // cols
    if bh == 0 or bw == 0:
        raise ValueError(f"a {height} x {width} tensor has no {rows} x {cols} blocks")
    out = torch.zeros_like(pixels)
    order = permutation(spec)
    for k, source in enumerate(order):
        (a, b), (i, j) = divmod(k, cols), divmod(source, cols)
        out[:, a * bh:(a + 1) * bh, b * bw:(b + 1) * bw] = \
            pixels[:, i * bh:(i + 1) * bh, j * bw:(j + 1) * bw]
    return out


def spec_of(image: Image.Image) -> ShuffleSpec | None:
    """The shuffle a picture was tagged with when opened (None: none)."""
    return image.info.get(SHUFFLE_INFO)


def shuffled_pixels(pixels: torch.Tensor, images: Sequence[Image.Image]) -> torch.Tensor:
    """A batch of preprocessed pictures (``B × C × H × W``, rows in ``images``' order) with
    each tagged picture's row shuffled; untagged rows, and a batch of none, unchanged."""
    specs = [spec_of(im) for im in images]
    if not any(specs):
        return pixels
    if pixels.shape[0] != len(images):
        raise ValueError(f"{pixels.shape[0]} pixel rows for {len(images)} pictures")
    rows = [shuffle_tensor(p, s) if s else p for p, s in zip(pixels, specs, strict=True)]
    return torch.stack(rows)


class Shuffling:
    """A picture → tensor transform followed by the picture's shuffle, if tagged (a class, so
    a `DataLoader`'s worker processes can take it)."""

    def __init__(self, transform: Callable[[Image.Image], torch.Tensor]) -> None:
        self.transform = transform

    def __call__(self, image: Image.Image) -> torch.Tensor:
        spec = spec_of(image)
        pixels = self.transform(image)
        return shuffle_tensor(pixels, spec) if spec else pixels
