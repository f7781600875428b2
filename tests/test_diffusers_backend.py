"""The diffusers (SDXL + DPO UNet) backend, run offline on a tiny random SDXL pipeline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from vlcomp.generate.base import TextToImage, bivlc_prompt
from vlcomp.generate.diffusers_backend import DiffusersTextToImage, image_seed
from vlcomp.generate.tiny_pipeline import save_tiny_sdxl

CAPTIONS = ["A dog. On a mat.", "A red cube left of a blue ball."]


@pytest.fixture(scope="module")
def tiny_sdxl(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return save_tiny_sdxl(tmp_path_factory.mktemp("tiny-sdxl"))


def _backend(tiny_sdxl: tuple[Path, Path], **overrides) -> DiffusersTextToImage:
    pipeline, dpo = tiny_sdxl
    options = {"pipeline": str(pipeline), "unet": str(dpo), "variant": None,
               "num_inference_steps": 2, "height": 32, "width": 32, "resize": 24,
               "images_per_prompt": 2, **overrides}
    return DiffusersTextToImage.from_options(options, "cpu")


@pytest.fixture(scope="module")
def backend(tiny_sdxl: tuple[Path, Path]) -> DiffusersTextToImage:
    return _backend(tiny_sdxl)


def _pixels(images) -> list[np.ndarray]:
    return [np.asarray(g.image) for g in images]


def test_images_count_size_mode_and_meta(backend: DiffusersTextToImage) -> None:
    assert isinstance(backend, TextToImage)
    out = backend.generate(CAPTIONS, [1, 2])
    assert [len(images) for images in out] == [2, 2]
    for caption, seed, images in zip(CAPTIONS, [1, 2], out, strict=True):
        for k, g in enumerate(images):
            assert g.image.size == (24, 24) and g.image.mode == "RGB"
            assert g.meta["prompt"] == bivlc_prompt(caption)
            assert g.meta["seed"] == seed and g.meta["image_seed"] == image_seed(seed, k)
    # the two candidates of a prompt come from different noise
    assert not np.array_equal(*_pixels(out[0]))


def test_same_seed_same_images_different_seed_different(backend: DiffusersTextToImage) -> None:
    a, b, c = (backend.generate(CAPTIONS[:1], [s])[0] for s in (7, 7, 8))
    for x, y in zip(_pixels(a), _pixels(b), strict=True):
        assert np.array_equal(x, y)
    for x, z in zip(_pixels(a), _pixels(c), strict=True):
        assert not np.array_equal(x, z)


def test_images_do_not_depend_on_batching(tiny_sdxl: tuple[Path, Path]) -> None:
    one_call = _backend(tiny_sdxl, batch_size=8)
    together = one_call.generate(CAPTIONS, [3, 4])
    alone = one_call.generate(CAPTIONS[1:], [4])[0]
    split = _backend(tiny_sdxl, batch_size=1).generate(CAPTIONS, [3, 4])
    # exact on CPU: per-image generators, and the tiny model's batched kernels give bitwise
    # the same rows whatever the batch size
    for x, y in zip(_pixels(together[1]), _pixels(alone), strict=True):
        assert np.array_equal(x, y)
    for a, b in zip(together, split, strict=True):
        for x, y in zip(_pixels(a), _pixels(b), strict=True):
            assert np.array_equal(x, y)


def test_dpo_unet_is_swapped_in(tiny_sdxl: tuple[Path, Path], backend) -> None:
    base = _backend(tiny_sdxl, unet=None)
    with_dpo = backend.generate(CAPTIONS[:1], [5])[0]
    without = base.generate(CAPTIONS[:1], [5])[0]
    for x, y in zip(_pixels(with_dpo), _pixels(without), strict=True):
        assert not np.array_equal(x, y)
    dpo_unet = backend.pipeline().unet.state_dict()
    base_unet = base.pipeline().unet.state_dict()
    assert any(not (dpo_unet[k] == base_unet[k]).all() for k in dpo_unet)


def test_prompt_is_bivlc_prompt(backend: DiffusersTextToImage) -> None:
    expected = "A dog On a mat, high resolution, professional, 4k, highly detailed"
    assert backend.prompt("A dog. On a mat.") == expected == bivlc_prompt("A dog. On a mat.")
    custom = DiffusersTextToImage.from_options({"prompt_suffix": ", photo"}, "cpu")
    assert custom.prompt("A cat.") == "A cat, photo"


def test_options_validation_and_cpu_dtype() -> None:
    with pytest.raises(ValueError, match="guidence_scale"):
        DiffusersTextToImage.from_options({"guidence_scale": 5.0}, "cpu")
    with pytest.raises(ValueError, match="images_per_prompt"):
        DiffusersTextToImage.from_options({"images_per_prompt": 0}, "cpu")
    defaults = DiffusersTextToImage.from_options({}, "cpu")  # no loading before generate
    assert defaults._pipe is None
    assert defaults.images_per_prompt == 4 and defaults.guidance_scale == 5.0
    assert defaults.dtype == torch.float32  # float16 asked, but CPU runs in float32


def test_generate_checks_lengths(backend: DiffusersTextToImage) -> None:
    with pytest.raises(ValueError, match="2 captions but 1 seeds"):
        backend.generate(CAPTIONS, [1])
