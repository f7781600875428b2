"""Training images read from disk batch by batch equal the in-memory tensor."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.models.world_clip import WorldTransform, images_to_tensor
from vlcomp.train.image_bank import ConcatImages, FileImages, as_pixels, concat_pixels


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    arrays = rng.integers(0, 256, (5, 32, 32, 3), dtype=np.uint8)
    paths = []
    for k, a in enumerate(arrays):
        paths.append(tmp_path / f"{k}.png")
        Image.fromarray(a).save(paths[-1])
    return arrays, [str(p) for p in paths]


def test_file_images_match_the_tensor(files):
    arrays, paths = files
    bank = FileImages(paths, WorldTransform(32), workers=2)
    tensor = images_to_tensor(arrays)
    rows = torch.tensor([4, 0, 2])
    assert len(bank) == 5
    torch.testing.assert_close(bank[rows], tensor[rows])
    torch.testing.assert_close(bank[1:3], tensor[1:3])
    assert as_pixels(bank) is bank


def test_concat_keeps_row_order_across_banks(files):
    arrays, paths = files
    first = images_to_tensor(arrays[:2])
    second = FileImages(paths[2:], WorldTransform(32))
    both = concat_pixels(first, second)
    assert isinstance(both, ConcatImages) and len(both) == 5
    rows = torch.tensor([3, 1, 4, 0])
    torch.testing.assert_close(both[rows], images_to_tensor(arrays)[rows])
    assert isinstance(concat_pixels(first, first), torch.Tensor)


def test_unreadable_images_are_named(tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image")
    with pytest.raises(OSError, match=r"bad\.jpg"):
        FileImages([str(bad)], WorldTransform(32))[torch.tensor([0])]


def test_training_from_files_equals_training_in_memory(files):
    """Same seed, same weights whether the pixels come from memory or from disk."""
    from vlcomp.models.world_clip import build_world_clip, world_tokenizer
    from vlcomp.train.clip_trainer import TrainConfig, train_clip

    arrays, paths = files
    cfg = {"embed_dim": 16, "vision": {"image_size": 32, "layers": [1, 1, 1, 1], "width": 8,
                                       "head_width": 8},
           "text": {"context_length": 16, "vocab_size": 49408, "width": 16, "heads": 2,
                    "layers": 1}}
    captions = [[f"a photo number {k}", f"picture {k}"] for k in range(5)]
    weights = []
    for images in (arrays, FileImages(paths, WorldTransform(32))):
        torch.manual_seed(0)
        model = build_world_clip(cfg)
        train_clip(model, images, captions, world_tokenizer(cfg),
                   TrainConfig(epochs=2, batch_size=2, lr=1e-3, warmup_steps=1, seed=0,
                               threads=1, amp=False))
        weights.append(model.state_dict())
    for key, value in weights[0].items():
        torch.testing.assert_close(value, weights[1][key])
