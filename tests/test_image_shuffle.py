"""Seeded row / column / patch image shuffles (ARO Table 4) without zero-filled borders."""

import itertools
from collections import Counter

import numpy as np
import pytest
from PIL import Image

from vlcomp.image.shuffle import (
    ARO_NAMES,
    IMAGE_PERTURBATIONS,
    band_sizes,
    grid_arrangement,
    shuffle_columns,
    shuffle_grid,
    shuffle_patches,
    shuffle_rows,
)

GRIDS = {"shuffle_rows": (4, 1), "shuffle_columns": (1, 4), "shuffle_patches": (3, 3)}


def coord_image(height: int, width: int) -> np.ndarray:
    """Every pixel distinct and non-zero: (y + 1, x + 1, 255)."""
    y, x = np.mgrid[:height, :width]
    return np.stack([y + 1, x + 1, np.full_like(y, 255)], axis=-1).astype(np.uint8)


def sorted_pixels(a: np.ndarray) -> np.ndarray:
    flat = np.asarray(a).reshape(-1, np.asarray(a).shape[-1])
    return flat[np.lexsort(flat.T[::-1])]


def blocks(a: np.ndarray, n_rows: int, n_cols: int) -> list[np.ndarray]:
    ys = np.cumsum([0, *band_sizes(a.shape[0], n_rows)])
    xs = np.cumsum([0, *band_sizes(a.shape[1], n_cols)])
    return [a[ys[i] : ys[i + 1], xs[j] : xs[j + 1]] for i in range(n_rows) for j in range(n_cols)]


def test_band_sizes_follow_array_split():
    for n, p in [(65, 4), (67, 3), (224, 3), (64, 4), (5, 5)]:
        assert band_sizes(n, p) == [len(c) for c in np.array_split(np.arange(n), p)]
    with pytest.raises(ValueError, match="non-empty"):
        band_sizes(2, 3)


@pytest.mark.parametrize("name", sorted(IMAGE_PERTURBATIONS))
@pytest.mark.parametrize("shape", [(64, 72), (65, 67), (224, 224), (7, 11)])
def test_pixels_and_size_preserved(name, shape):
    img = coord_image(*shape)
    out = IMAGE_PERTURBATIONS[name](img, np.random.default_rng(0))
    assert out.shape == img.shape and out.dtype == img.dtype
    # every pixel exactly once (pixels are distinct), hence no zero-filled border
    np.testing.assert_array_equal(sorted_pixels(out), sorted_pixels(img))
    assert (out != 0).any(axis=-1).all()


@pytest.mark.parametrize("name", sorted(IMAGE_PERTURBATIONS))
def test_divisible_output_is_a_permutation_of_the_blocks(name):
    n_rows, n_cols = GRIDS[name]
    img = coord_image(72, 48)  # divisible by 4 and 3
    for seed in range(20):
        out = IMAGE_PERTURBATIONS[name](img, np.random.default_rng(seed))
        src, dst = blocks(img, n_rows, n_cols), blocks(out, n_rows, n_cols)
        matched = [next(i for i, b in enumerate(src) if np.array_equal(b, d)) for d in dst]
        assert sorted(matched) == list(range(n_rows * n_cols))


def _strip_order(rows: list[int], strips: list[list[int]]) -> tuple[int, ...]:
    """Which strips, in which order, concatenate to ``rows`` (fails if they do not)."""
    order, pos = [], 0
    while pos < len(rows):
        k = next(k for k, s in enumerate(strips) if rows[pos : pos + len(s)] == s)
        order.append(k)
        pos += len(strips[k])
    return tuple(order)


def test_non_divisible_rows_are_concatenated_input_strips():
    img = coord_image(65, 67)  # 65 rows -> strips of 17, 16, 16, 16
    edges = np.cumsum([0, 17, 16, 16, 16])
    strips = [list(range(edges[k], edges[k + 1])) for k in range(4)]
    seen = set()
    for seed in range(40):
        out = shuffle_rows(img, np.random.default_rng(seed))
        rows = (out[:, 0, 0].astype(int) - 1).tolist()
        np.testing.assert_array_equal(out, img[rows])  # whole input rows
        order = _strip_order(rows, strips)
        assert sorted(order) == [0, 1, 2, 3]
        seen.add(order)
    assert len(seen) > 10  # strips of both sizes move around


def test_non_divisible_columns_preserve_whole_columns():
    img = coord_image(65, 67)
    out = shuffle_columns(img, np.random.default_rng(3))
    cols = out[0, :, 1].astype(int) - 1
    np.testing.assert_array_equal(out, img[:, cols])
    assert sorted(cols) == list(range(67))


@pytest.mark.parametrize("seed", range(10))
def test_non_divisible_patches_retile_whole_patches(seed):
    img = coord_image(65, 67)  # heights 22, 22, 21; widths 23, 22, 22
    out = shuffle_patches(img, np.random.default_rng(seed))
    heights, widths, source = grid_arrangement(65, 67, 3, 3, np.random.default_rng(seed))
    assert sorted(heights) == [21, 22, 22] and sorted(widths) == [22, 22, 23]
    assert sorted(source.tolist()) == list(range(9))
    ys, xs = np.cumsum([0, *heights]), np.cumsum([0, *widths])
    src = blocks(img, 3, 3)
    for cell, block in enumerate(source):
        a, b = divmod(cell, 3)
        np.testing.assert_array_equal(out[ys[a] : ys[a + 1], xs[b] : xs[b + 1]], src[block])


def test_non_divisible_patch_of_unique_shape_can_reach_every_cell():
    # 65 x 67: the (21, 23) patch is the only one of its shape (input block 6)
    cells = set()
    for seed in range(300):
        _, _, source = grid_arrangement(65, 67, 3, 3, np.random.default_rng(seed))
        cells.add(int(np.flatnonzero(source == 6)[0]))
    assert cells == set(range(9))


def test_divisible_rows_permutation_is_uniform_and_allows_identity():
    counts = Counter(
        tuple(grid_arrangement(8, 8, 4, 1, np.random.default_rng(s))[2]) for s in range(2400)
    )
    assert set(counts) == set(itertools.permutations(range(4)))
    assert min(counts.values()) > 60 and max(counts.values()) < 140  # expected 100 each
    assert counts[(0, 1, 2, 3)] > 0


@pytest.mark.parametrize("name", sorted(IMAGE_PERTURBATIONS))
def test_require_change_never_returns_identity(name):
    n_rows, n_cols = GRIDS[name]
    img = coord_image(13, 14)
    for seed in range(200):
        out = IMAGE_PERTURBATIONS[name](img, np.random.default_rng(seed), require_change=True)
        assert not np.array_equal(out, img)
        _, _, source = grid_arrangement(13, 14, n_rows, n_cols, np.random.default_rng(seed),
                                        require_change=True)
        assert (source != np.arange(n_rows * n_cols)).any()


@pytest.mark.parametrize("name", sorted(IMAGE_PERTURBATIONS))
def test_deterministic_for_a_seed_and_seeds_differ(name):
    fn = IMAGE_PERTURBATIONS[name]
    img = coord_image(65, 67)
    a = fn(img, np.random.default_rng(7))
    b = fn(img, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    outs = {fn(img, np.random.default_rng(s)).tobytes() for s in range(8)}
    assert len(outs) > 1


def test_pil_in_pil_out():
    arr = coord_image(65, 67)
    img = Image.fromarray(arr)
    out = shuffle_patches(img, np.random.default_rng(1))
    assert isinstance(out, Image.Image) and out.size == img.size and out.mode == "RGB"
    np.testing.assert_array_equal(
        np.asarray(out), shuffle_patches(arr, np.random.default_rng(1))
    )
    gray = Image.fromarray(arr[..., 0])
    out = shuffle_rows(gray, np.random.default_rng(1))
    assert out.mode == "L" and out.size == gray.size
    pal = gray.convert("P")
    out = shuffle_columns(pal, np.random.default_rng(1))
    assert out.mode == "P" and out.getpalette() == pal.getpalette()
    assert sorted(np.asarray(out).ravel()) == sorted(np.asarray(pal).ravel())


def test_input_is_not_modified_and_bad_inputs_raise():
    img = coord_image(12, 12)
    copy = img.copy()
    shuffle_patches(img, np.random.default_rng(0))
    np.testing.assert_array_equal(img, copy)
    with pytest.raises(ValueError, match="non-empty"):
        shuffle_patches(coord_image(2, 9), np.random.default_rng(0))
    with pytest.raises(ValueError, match="H×W"):
        shuffle_rows(np.zeros(16, dtype=np.uint8), np.random.default_rng(0))
    with pytest.raises(TypeError):
        shuffle_rows([[0] * 8] * 8, np.random.default_rng(0))
    with pytest.raises(ValueError, match="2 blocks"):
        shuffle_grid(img, 1, 1, np.random.default_rng(0), require_change=True)


def test_registry_and_aro_names():
    expected = {"shuffle_rows": shuffle_rows, "shuffle_columns": shuffle_columns,
                "shuffle_patches": shuffle_patches}
    assert expected == IMAGE_PERTURBATIONS
    assert set(ARO_NAMES.values()) == set(IMAGE_PERTURBATIONS)
