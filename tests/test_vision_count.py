"""Counting images through a dual encoder's vision tower (`vlcomp.models.vision_count`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.models.base import DualEncoderScorer
from vlcomp.models.vision_count import LOG_PATTERN, count_vision_passes
from vlcomp.models.world_clip import (
    DEFAULT_WORLD_CLIP,
    build_world_clip,
    world_tokenizer,
    world_transform,
)
from vlcomp.score.embeddings import content_key, embed_image_set, embed_image_sets, open_image


def world_scorer() -> DualEncoderScorer:
    cfg = DEFAULT_WORLD_CLIP
    return DualEncoderScorer("world", build_world_clip(cfg).eval(), world_transform(cfg),
                             world_tokenizer(cfg), int(cfg["embed_dim"]))


def test_an_image_set_goes_through_the_tower_once_per_row(tmp_path):
    rows = []
    for k in range(7):
        path = tmp_path / f"{k}.png"
        Image.new("RGB", (64, 64), (30 * k, 0, 0)).save(path)
        rows.append({"image_id": str(k), "path": str(path)})
    scorer = world_scorer()
    passes = count_vision_passes(scorer)
    emb = embed_image_set(scorer, pd.DataFrame(rows), batch_size=3, chunk=4)
    assert emb.shape == (7, 128) and np.isfinite(emb).all()
    assert (passes.images, passes.calls) == (7, 3)  # chunks of 4 + 3, batches 3+1 and 3
    scorer.embed_texts(["a red circle"])  # texts do not count
    assert passes.images == 7
    assert LOG_PATTERN.search(passes.summary()).groups() == ("7", "world")


def test_a_scorer_without_a_tower_is_not_counted():
    class Opaque:
        name = "mine"

    passes = count_vision_passes(Opaque())
    assert not passes.counted and "not counted" in passes.summary()
    assert LOG_PATTERN.search(passes.summary()) is None


def test_loader_workers_give_the_same_embeddings_and_name_bad_files(tmp_path):
    rows = []
    for k in range(5):
        path = tmp_path / f"{k}.png"
        Image.new("RGB", (80, 60), (50 * k, 20, 200 - 40 * k)).save(path)
        rows.append({"image_id": str(k), "path": str(path),
                     "bbox": [2, 3, 40, 30] if k == 1 else None})
    table = pd.DataFrame(rows)
    scorer = world_scorer()
    direct = scorer.embed_images([open_image(r["path"], r["bbox"]) for r in rows], batch_size=2)
    in_process = embed_image_set(scorer, table, batch_size=2)
    with_workers = embed_image_set(scorer, table, batch_size=2, workers=2)
    assert np.array_equal(in_process, direct) and np.array_equal(with_workers, direct)
    (tmp_path / "3.png").write_bytes(b"not a png")
    with pytest.raises(Exception, match=r"3\.png"):
        embed_image_set(scorer, table, batch_size=2, workers=2)


def test_equal_pictures_in_several_sets_are_encoded_once(tmp_path):
    paths = []
    for k, colour in enumerate([(200, 0, 0), (0, 200, 0), (200, 0, 0)]):  # 2 has 0's bytes
        paths.append(tmp_path / f"{k}.png")
        image = Image.new("RGB", (64, 64), colour)
        image.paste((0, 0, 220), (40, 40, 64, 64))  # a blue corner the crop leaves out
        image.save(paths[-1])
    first = pd.DataFrame({"image_id": ["a", "b"], "path": [str(p) for p in paths[:2]]})
    second = pd.DataFrame({"image_id": ["c", "a_crop", "a_again"],
                           "path": [str(paths[2]), str(paths[0]), str(paths[0])],
                           "bbox": [None, [0, 0, 32, 32], None]})
    assert content_key(paths[0]) == content_key(paths[2]) != content_key(paths[1])
    scorer = world_scorer()
    passes = count_vision_passes(scorer)
    (one, two), n_distinct = embed_image_sets(scorer, [first, second], batch_size=2)
    assert n_distinct == passes.images == 3  # red, green, red's crop
    assert one.shape == (2, 128) and two.shape == (3, 128)
    assert np.array_equal(two[0], one[0]) and np.array_equal(two[2], one[0])
    assert not np.allclose(two[1], one[0])
    separately = embed_image_set(scorer, second, batch_size=2)
    assert np.allclose(two, separately, atol=1e-6)
