"""Seeded row / column / patch image shuffles (ARO Table 4): of the raw picture without zero-filled
borders, and of each model's preprocessed tensor as ARO shuffles it."""

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


# ------------------------------------------- ARO's shuffles of each model's preprocessed tensor


def test_tensor_shuffles_permute_aro_blocks_and_zero_the_border():
    """ARO's reference checks: 4 row bands of a 3 x 224 x 224 tensor are a permutation of its
    56-row bands; 3 x 3 patches of 224 // 3 = 74 pixels leave rows and columns 222-223 at 0."""
    import torch

    from vlcomp.image.shuffle_views import ShuffleSpec
    from vlcomp.image.tensor_shuffle import permutation, shuffle_tensor

    pixels = torch.arange(1, 3 * 224 * 224 + 1, dtype=torch.float32).reshape(3, 224, 224)
    spec = ShuffleSpec("shuffle_rows", 0, "im7")
    rows = shuffle_tensor(pixels, spec)
    order = permutation(spec)
    assert sorted(order) == [0, 1, 2, 3]
    for k, source in enumerate(order):
        assert torch.equal(rows[:, 56 * k:56 * (k + 1)], pixels[:, 56 * source:56 * (source + 1)])
    patches = shuffle_tensor(pixels, ShuffleSpec("shuffle_patches", 1, "im7"))
    assert (patches[:, 222:, :] == 0).all() and (patches[:, :, 222:] == 0).all()
    assert (patches[:, :222, :222] != 0).all()
    blocks = {tuple(pixels[:, 74 * i:74 * (i + 1), 74 * j:74 * (j + 1)].flatten()[:3].tolist())
              for i in range(3) for j in range(3)}
    assert {tuple(patches[:, 74 * a:74 * (a + 1), 74 * b:74 * (b + 1)].flatten()[:3].tolist())
            for a in range(3) for b in range(3)} == blocks
    columns = shuffle_tensor(pixels[:, :, :222], ShuffleSpec("shuffle_columns", 0, "im7"))
    assert (columns[:, :, 220:] == 0).all()  # 222 // 4 = 55: 2 columns left over
    assert torch.equal(shuffle_tensor(pixels, spec), rows)  # seeded by the picture's id


def test_a_shuffled_view_names_its_file_and_shuffle_and_is_its_own_content(tmp_path):
    from vlcomp.image.shuffle_views import SHUFFLE_INFO, ShuffleSpec, split_view, view_path
    from vlcomp.score.embeddings import content_key, distinct_images, open_image

    path = tmp_path / "a.png"
    Image.fromarray(coord_image(30, 40)).save(path)
    spec = ShuffleSpec("shuffle_patches", 2, "coco/123")
    view = view_path(str(path), spec)
    assert split_view(view) == (str(path), spec) and split_view(str(path)) == (str(path), None)
    picture = open_image(view)
    assert picture.info[SHUFFLE_INFO] == spec and picture.size == (40, 30)
    assert np.array_equal(np.asarray(picture), np.asarray(open_image(path)))  # not shuffled
    assert content_key(view) != content_key(path)
    other = view_path(str(path), ShuffleSpec("shuffle_patches", 3, "coco/123"))
    import pandas as pd

    rows, positions = distinct_images([pd.DataFrame({"path": [str(path), view, other, view]})])
    assert len(rows) == 3 and positions == [[0, 1, 2, 1]]


def test_every_scorer_shuffles_the_tagged_pictures_after_its_preprocessing(tmp_path):
    """A dual encoder embeds a shuffled view as its own preprocessed tensor, shuffled; the
    batch helper of the processor families shuffles only tagged rows."""
    import torch

    from vlcomp.image.shuffle_views import ShuffleSpec, view_path
    from vlcomp.image.tensor_shuffle import Shuffling, shuffle_tensor, shuffled_pixels
    from vlcomp.score.embeddings import open_image

    path = tmp_path / "a.png"
    Image.fromarray(coord_image(48, 64)).save(path)
    spec = ShuffleSpec("shuffle_rows", 0, "a")
    plain, tagged = open_image(path), open_image(view_path(str(path), spec))

    def to_tensor(im: Image.Image) -> torch.Tensor:
        return torch.from_numpy(np.array(im.resize((32, 32)))).permute(2, 0, 1).float()

    assert torch.equal(Shuffling(to_tensor)(plain), to_tensor(plain))
    assert torch.equal(Shuffling(to_tensor)(tagged), shuffle_tensor(to_tensor(plain), spec))
    batch = torch.stack([to_tensor(plain), to_tensor(plain)])
    out = shuffled_pixels(batch, [plain, tagged])
    assert torch.equal(out[0], batch[0]) and torch.equal(out[1], shuffle_tensor(batch[1], spec))
    assert shuffled_pixels(batch, [plain, plain]) is batch


def test_a_scorer_that_cannot_shuffle_its_tensors_gets_the_picture_shuffled(tmp_path):
    """A family of one's own (no ``shuffles_pixels``) never sees a shuffled view unshuffled:
    it gets the picture shuffled before it; the built-in families get the tagged picture."""
    from vlcomp.image.shuffle_views import ShuffleSpec, raw_shuffled, view_path
    from vlcomp.models.base import DualEncoderScorer
    from vlcomp.score.embeddings import open_image
    from vlcomp.seeding import stable_rng

    path = tmp_path / "a.png"
    Image.fromarray(coord_image(40, 40)).save(path)
    spec = ShuffleSpec("shuffle_columns", 1, "a")
    tagged, plain = open_image(view_path(str(path), spec)), open_image(path)
    assert DualEncoderScorer.shuffles_pixels
    assert raw_shuffled([tagged, plain], DualEncoderScorer)[0] is tagged
    mine, same = raw_shuffled([tagged, plain], object())
    expected = shuffle_columns(plain, stable_rng("image", "shuffle_columns", 1, "a"))
    assert np.array_equal(np.asarray(mine), np.asarray(expected)) and same is plain
