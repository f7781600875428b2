"""The world's Winoground-style balanced set: same words, each caption true of one image."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.benchmarks.winoground_world import (
    SUBSETS,
    balanced_items,
    render_pair_images,
    same_words,
)
from vlcomp.data.world import read_scenes
from vlcomp.metrics.alpha_curves import alpha_curve, pair_image_accuracy, prior_only_items
from vlcomp.metrics.compute import compute_metrics
from vlcomp.world.oracle import Oracle
from vlcomp.world.render import render_scene


@pytest.fixture(scope="module")
def pairs(world_dir, world_cfg):
    scenes = {k: s for k, s in read_scenes(world_dir / "scenes.jsonl").items()
              if s.split == "test"}
    captions = pd.read_parquet(world_dir / "captions.parquet")
    items, edited = balanced_items(scenes, captions[captions.split == "test"], world_cfg, 0)
    return scenes, captions[captions.split == "test"], items, {s.scene_id: s for s in edited}


def test_each_caption_is_true_of_exactly_its_own_image(pairs, world_cfg):
    scenes, _, items, edited = pairs
    oracle = Oracle(world_cfg)
    assert set(items.subset) == set(SUBSETS)
    assert len(items) > len(scenes)  # most scenes give more than one kind of pair
    for row in items.itertuples():
        first, second = scenes[row.image_ids[0]], edited[row.image_ids[1]]
        c0, c1 = row.texts
        assert c0 != c1 and same_words(c0, c1)
        assert oracle.is_true(c0, first) and not oracle.is_true(c1, first)
        assert oracle.is_true(c1, second) and not oracle.is_true(c0, second)
        assert row.protocol == "pair" and row.label == 0 and row.tie_policy == "strict"


def test_phrase_swaps_move_the_objects(pairs):
    scenes, _, items, edited = pairs
    row = items[items.subset == "swap_phrases"].iloc[0]
    before, after = scenes[row.image_ids[0]], edited[row.image_ids[1]]
    looks = [(o.shape, o.color, o.size) for o in before.objects]
    moved = [(o.shape, o.color, o.size) for o in after.objects]
    assert sorted(looks) == sorted(moved) and looks != moved  # same objects, other places
    assert [(o.x, o.y) for o in before.objects] == [(o.x, o.y) for o in after.objects]


def test_seeded_and_restricted_to_the_asked_subsets(pairs, world_cfg):
    scenes, captions, items, _ = pairs
    again, _ = balanced_items(scenes, captions, world_cfg, 0)
    pd.testing.assert_frame_equal(items, again)
    only, _ = balanced_items(scenes, captions, world_cfg, 0, ("swap_att",))
    assert set(only.subset) == {"swap_att"}
    with pytest.raises(ValueError, match="unknown Winoground-style subset"):
        balanced_items(scenes, captions, world_cfg, 0, ("replace_obj",))


def test_second_images_are_exact_renders(pairs, world_cfg, tmp_path):
    _, _, items, edited = pairs
    scenes = [edited[i[1]] for i in items.image_ids[:3]]
    table = render_pair_images(scenes, world_cfg, tmp_path / "img")
    assert list(table.image_id) == [s.scene_id for s in scenes]
    with Image.open(table.path[0]) as img:
        expected = np.asarray(render_scene(scenes[0], world_cfg))
        assert np.array_equal(np.asarray(img.convert("RGB")), expected)


def test_a_text_only_score_is_at_chance_per_image_and_never_wins_a_pair(pairs):
    _, _, items, _ = pairs
    rng = np.random.default_rng(0)
    prior = {t: float(rng.normal()) for texts in items.texts for t in texts}
    blind = prior_only_items(items, prior)
    assert pair_image_accuracy(blind, prior, np.array([0.0]))[0] == pytest.approx(50.0)
    metrics = compute_metrics("winoground", items, blind.assign(model="blind")[
        ["item_id", "scores"]], benchmark="winoground")
    assert metrics["overall"]["I2T"] == 0.0 and metrics["overall"]["Group"] == 0.0
    assert set(metrics["subsets"]) == set(SUBSETS)
    _, summary = alpha_curve(blind, prior, metric="winoground", step=0.1, repeats=2)
    assert summary["per_image"]["prior_only"] == pytest.approx(50.0)
    assert summary["accuracy_prior_only"] == 0.0


def test_winoground_metrics_score_text_image_and_group_per_subset():
    items = pd.DataFrame({
        "item_id": ["a", "b", "c"], "subset": ["swap_obj", "swap_obj", "Relation"],
        "image_ids": [["i0", "i1"]] * 3, "texts": [["x y", "y x"]] * 3,
        "protocol": "pair", "label": 0, "tie_policy": "strict"})
    scores = pd.DataFrame({"item_id": ["a", "b", "c"], "scores": [
        [[2.0, 1.0], [0.0, 3.0]],   # text and image right: group
        [[2.0, 0.0], [1.5, 1.0]],   # image 1 prefers caption 0: text wrong; image right
        [[1.0, 1.0], [0.0, 3.0]],   # a tie: wrong under the strict policy
    ]})
    m = compute_metrics("winoground", items, scores, benchmark="winoground")
    assert m["metric"] == "winoground" and m["n_items"] == 3
    assert m["overall"]["I2T"] == pytest.approx(100 / 3, abs=1e-3)
    assert m["overall"]["Group"] == pytest.approx(100 / 3, abs=1e-3)
    assert m["subsets"]["swap_obj"]["I2T"] == 50.0 and m["subsets"]["swap_obj"]["T2I"] == 100.0
    assert list(m["subsets"]) == ["swap_obj", "Relation"]
    assert m["subsets"]["Relation"]["T2I"] == 100.0 and m["subsets"]["Relation"]["I2T"] == 0.0
