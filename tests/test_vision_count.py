"""Counting images through a dual encoder's vision tower (`vlcomp.models.vision_count`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PIL import Image

from vlcomp.models.base import DualEncoderScorer
from vlcomp.models.vision_count import LOG_PATTERN, count_vision_passes
from vlcomp.models.world_clip import (
    DEFAULT_WORLD_CLIP,
    build_world_clip,
    world_tokenizer,
    world_transform,
)
from vlcomp.score.embeddings import embed_image_set


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
