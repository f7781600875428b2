"""Seeded image shuffles of ARO Table 4: 4 row strips, 4 column strips, a 3×3 patch grid.

The reference (``mertyg/vision-language-models-are-bows``, ``shuffle_rows(n_rows=4)``,
``shuffle_columns(n_cols=4)``, ``shuffle_patches(n_ratio=3)``) cuts blocks of
``H // n`` × ``W // n`` with ``torch.nn.functional.unfold``, permutes them with
``torch.randperm`` and folds them back, so pixels left over by the integer division are
**zero-filled** (224 px / 3 patches: the last 2 rows and columns become black). Here no
pixel is dropped or zeroed and nothing is resized:

* **Block sizes.** An axis of ``n`` pixels cut into ``p`` bands gets the sizes of
  ``np.array_split``: the first ``n % p`` bands are one pixel larger than the rest
  (65 rows / 4 → 17, 16, 16, 16). For divisible sizes every band is ``n // p`` as in the
  reference.
* **Rows / columns.** The strips are put back in a uniform random order by concatenation,
  so the output has the input's size whatever the strip sizes.
* **Patches (and the general grid).** The image is a grid of row bands × column bands; the
  output is again such a grid whose band sizes are a permutation of the input's: the row
  band order and the column band order are drawn uniformly, which fixes the shape of every
  output cell, then the patches of each shape are dealt uniformly onto the cells of that
  shape. Every patch lands in a cell of exactly its own shape, so every pixel appears once.
  The arrangement is uniform over *all* ways of re-tiling the patches into a grid of the
  image's size (each distinct output grid is equally likely and each has the same number
  of shape-respecting deals), and any patch can reach any position. With divisible sizes
  all patches share one shape, and this is a uniform permutation of the 9 patches, the
  reference's distribution. With unequal sizes, a patch moved to a band of another size
  changes the band layout (e.g. 22, 22, 21 rows become 22, 21, 22).

The identity arrangement is allowed by default, as in the reference (``torch.randperm``
can return the identity: probability 1/24 for 4 strips, 1/9! for 9 equal patches).
``require_change=True`` redraws until some block moves (rejection sampling, so the result
is uniform over the non-identity arrangements). It guarantees a moved *block*, not changed
*pixels*: blocks with identical content (a flat image) can still give an identical output.

Inputs are ``PIL.Image.Image`` or ``H×W`` / ``H×W×C`` arrays (typically ``H×W×3`` uint8);
the output has the input's type (PIL mode and palette kept; arrays keep their dtype). The
reference shuffles *after* preprocessing (e.g. a 224×224 crop), so apply these to the
preprocessed-size image to match its block sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
from PIL import Image

ImageLike = TypeVar("ImageLike", Image.Image, np.ndarray)

N_ROWS = 4
N_COLS = 4
N_PATCH_SIDE = 3  # 3 × 3 = 9 patches


def band_sizes(length: int, parts: int) -> list[int]:
    """Sizes of ``parts`` bands cut from ``length`` pixels, as ``np.array_split`` cuts them:
    the first ``length % parts`` bands are one pixel larger."""
    if parts < 1:
        raise ValueError(f"parts must be >= 1, got {parts}")
    if length < parts:
        raise ValueError(f"cannot cut {length} pixels into {parts} non-empty bands")
    q, r = divmod(length, parts)
    return [q + 1] * r + [q] * (parts - r)


def _edges(sizes: list[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def grid_arrangement(
    height: int,
    width: int,
    n_rows: int,
    n_cols: int,
    rng: np.random.Generator,
    require_change: bool = False,
) -> tuple[list[int], list[int], np.ndarray]:
    """Draw a re-tiling of the ``n_rows × n_cols`` block grid of a ``height × width`` image.

    Returns ``(out_heights, out_widths, source)``: the output grid's row band heights and
    column band widths, and ``source[a * n_cols + b]`` = the input block index
    ``i * n_cols + j`` (row-major) that fills output cell ``(a, b)``; the source block has
    exactly the cell's shape. See the module docstring for the distribution.
    """
    heights, widths = band_sizes(height, n_rows), band_sizes(width, n_cols)
    n_blocks = n_rows * n_cols
    if require_change and n_blocks < 2:
        raise ValueError("require_change needs at least 2 blocks")
    in_shapes = [(h, w) for h in heights for w in widths]
    while True:
        out_heights = [heights[i] for i in rng.permutation(n_rows)]
        out_widths = [widths[j] for j in rng.permutation(n_cols)]
        out_shapes = [(h, w) for h in out_heights for w in out_widths]
        source = np.empty(n_blocks, dtype=np.int64)
        for shape in sorted(set(in_shapes)):
            blocks = [b for b, s in enumerate(in_shapes) if s == shape]
            cells = [c for c, s in enumerate(out_shapes) if s == shape]
            source[cells] = np.asarray(blocks)[rng.permutation(len(blocks))]
        if not require_change or (source != np.arange(n_blocks)).any():
            return out_heights, out_widths, source


def _shuffle_array(
    array: np.ndarray, n_rows: int, n_cols: int, rng: np.random.Generator, require_change: bool
) -> np.ndarray:
    if array.ndim not in (2, 3):
        raise ValueError(f"expected an H×W or H×W×C image, got shape {array.shape}")
    height, width = array.shape[:2]
    out_heights, out_widths, source = grid_arrangement(
        height, width, n_rows, n_cols, rng, require_change
    )
    ys, xs = _edges(band_sizes(height, n_rows)), _edges(band_sizes(width, n_cols))
    oys, oxs = _edges(out_heights), _edges(out_widths)
    out = np.empty_like(array)
    for cell, block in enumerate(source):
        a, b = divmod(cell, n_cols)
        i, j = divmod(int(block), n_cols)
        out[oys[a] : oys[a + 1], oxs[b] : oxs[b + 1]] = array[ys[i] : ys[i + 1], xs[j] : xs[j + 1]]
    return out


def shuffle_grid(
    image: ImageLike,
    n_rows: int,
    n_cols: int,
    rng: np.random.Generator,
    require_change: bool = False,
) -> ImageLike:
    """Re-tile ``image``'s ``n_rows × n_cols`` blocks at random (see the module docstring)."""
    if isinstance(image, Image.Image):
        out = Image.fromarray(_shuffle_array(np.asarray(image), n_rows, n_cols, rng,
                                             require_change))
        if image.mode == "P":
            out.putpalette(image.getpalette())
        if out.mode != image.mode:
            raise ValueError(f"PIL mode {image.mode!r} does not round-trip through numpy")
        out.info = dict(image.info)
        return out
    if isinstance(image, np.ndarray):
        return _shuffle_array(image, n_rows, n_cols, rng, require_change)
    raise TypeError(f"expected a PIL image or a numpy array, got {type(image).__name__}")


def shuffle_rows(
    image: ImageLike, rng: np.random.Generator, require_change: bool = False
) -> ImageLike:
    """Cut into 4 horizontal strips and put them back in a uniform random order."""
    return shuffle_grid(image, N_ROWS, 1, rng, require_change)


def shuffle_columns(
    image: ImageLike, rng: np.random.Generator, require_change: bool = False
) -> ImageLike:
    """Cut into 4 vertical strips and put them back in a uniform random order."""
    return shuffle_grid(image, 1, N_COLS, rng, require_change)


def shuffle_patches(
    image: ImageLike, rng: np.random.Generator, require_change: bool = False
) -> ImageLike:
    """Cut into a 3×3 grid of 9 patches and re-tile them at random (uniform permutation
    of the 9 patches when the size is divisible by 3; see the module docstring otherwise)."""
    return shuffle_grid(image, N_PATCH_SIDE, N_PATCH_SIDE, rng, require_change)


ImagePerturbation = Callable[..., Image.Image | np.ndarray]

IMAGE_PERTURBATIONS: dict[str, ImagePerturbation] = {
    "shuffle_rows": shuffle_rows,
    "shuffle_columns": shuffle_columns,
    "shuffle_patches": shuffle_patches,
}

# ``--image-perturb-fn`` names of the ARO code -> keys of `IMAGE_PERTURBATIONS`.
ARO_NAMES = {
    "shuffle_rows_4": "shuffle_rows",
    "shuffle_cols_4": "shuffle_columns",
    "shuffle_patches_9": "shuffle_patches",
}
