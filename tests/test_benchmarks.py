"""Benchmark builders: ARO VG, Order, SugarCrepe-style edits and BiVLC-style pairs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from vlcomp.benchmarks.aro_vg import attribution_items, relation_items, write_crops
from vlcomp.benchmarks.bivlc import bivlc_items, rendered_selection
from vlcomp.benchmarks.order import order_items
from vlcomp.benchmarks.sugarcrepe import sugarcrepe_items
from vlcomp.data.world import read_scenes
from vlcomp.generate.world_renderer import generate_negative_images
from vlcomp.items import make_items
from vlcomp.world.edits import SUBSETS
from vlcomp.world.oracle import Oracle
from vlcomp.world.scene import ASYMMETRIC_RELATIONS, NEXT_TO


@pytest.fixture(scope="module")
def world(world_dir):
    d = world_dir
    scenes = {k: s for k, s in read_scenes(d / "scenes.jsonl").items() if s.split == "test"}
    captions = pd.read_parquet(d / "captions.parquet")
    return d, scenes, pd.read_parquet(d / "images.parquet"), captions[captions.split == "test"]


def test_vg_relation_items_follow_aro_templates(world, world_cfg):
    _, scenes, _, _ = world
    items = relation_items(scenes.values(), world_cfg, seed=0)
    oracle = Oracle(world_cfg)
    assert set(items.subset) <= set(ASYMMETRIC_RELATIONS) | {NEXT_TO}
    assert (items.label == 1).all() and (items.tie_policy == "strict").all()
    for row in items.itertuples():
        false, true = row.texts
        subj, rel, obj = true.removeprefix("the ").split(" is ")[0], row.subset, None
        obj = true.split(f" {rel} the ")[1]
        assert false == f"the {obj} is {rel} the {subj}"
        scene = scenes[row.scene_id]
        assert oracle.is_true(true, scene)
        assert oracle.is_true(false, scene) == (rel == NEXT_TO)
    assert Counter(items.subset)[NEXT_TO] < len(items)
    again = relation_items(scenes.values(), world_cfg, seed=0)
    pd.testing.assert_frame_equal(items, again)


def test_vg_attribution_items_swap_attributes_only(world, world_cfg):
    _, scenes, _, _ = world
    items = attribution_items(scenes.values(), world_cfg, seed=0)
    for row in items.itertuples():
        false, true = row.texts
        assert sorted(false.split()) == sorted(true.split())
        t, f = true.split(), false.split()
        assert (t[2], t[6]) == (f[2], f[6])  # nouns in place
        assert (t[1], t[5]) == (f[5], f[1])  # attributes swapped
        assert row.subset == f"{t[1]}_{t[5]}"


def test_crops_cover_every_pair(world, tmp_path):
    _, scenes, images, _ = world
    crops = write_crops(scenes.values(), images, tmp_path / "crops")
    expected = sum(len(s.objects) * (len(s.objects) - 1) // 2 for s in scenes.values())
    assert len(crops) == expected and crops.image_id.is_unique


def test_sugarcrepe_negatives_are_fluent_false_and_depicted(world, world_cfg):
    _, scenes, _, captions = world
    items, edited = sugarcrepe_items(scenes, captions, world_cfg, seed=0)
    oracle = Oracle(world_cfg)
    edited = {s.scene_id: s for s in edited}
    assert set(items.subset) == set(SUBSETS)
    assert items.image_ids.map(tuple).value_counts().max() <= len(SUBSETS)
    for row in items.itertuples():
        pos, neg = row.texts
        scene = scenes[row.image_ids[0]]
        assert pos != neg
        assert oracle.is_true(pos, scene) and not oracle.is_true(neg, scene)
        negative_scene = edited[f"{row.item_id}-neg"]
        assert oracle.is_true(neg, negative_scene)  # parses: fluent in the grammar
        if row.subset.startswith("swap"):
            words = [Counter(t.lower().replace(",", " ")[:-1].split()) for t in (pos, neg)]
            assert words[0] == words[1]
        if row.subset.startswith("add"):
            assert len(neg.split()) > len(pos.split())
        if row.type != "add":
            assert row.positive_false_on_negative
    again, _ = sugarcrepe_items(scenes, captions, world_cfg, seed=0)
    pd.testing.assert_frame_equal(items, again)
    other, _ = sugarcrepe_items(scenes, captions, world_cfg, seed=1)
    assert not items.texts.equals(other.texts)


def test_bivlc_pairs_from_rendered_negatives(world, world_cfg, tmp_path):
    _, scenes, _, captions = world
    items, edited = sugarcrepe_items(scenes, captions, world_cfg, seed=0)
    manifest = generate_negative_images(items, {s.scene_id: s for s in edited}, world_cfg,
                                        tmp_path / "neg")
    assert manifest.kept.all() and all(Path(p).is_file() for p in manifest.path)
    pairs = bivlc_items(items, rendered_selection(items, manifest))
    assert (pairs.protocol == "pair").all()
    assert set(pairs.type) == {"replace", "swap", "add"}
    row = pairs.iloc[0]
    assert row.image_ids[1] == f"{row.item_id}-neg"
    dropped = manifest.assign(oracle_prompt_true=False)
    with pytest.raises(ValueError, match="no items"):
        bivlc_items(items, rendered_selection(items, dropped))


def test_order_items_put_original_first():
    captions = pd.DataFrame({"caption_id": ["c1"], "image_id": ["i1"]})
    perturbed = pd.DataFrame({
        "caption_id": ["c1"] * 4, "perturbation": list("abcd"),
        "original": ["a red circle"] * 4,
        "perturbed": ["circle red a", "a circle red", "red a circle", "a red circle"],
        "changed": [True, True, True, False],
    })
    items = order_items({0: perturbed, 3: perturbed}, captions)
    assert list(items.item_id) == ["c1-s0", "c1-s3"]
    assert items.texts.iloc[0][0] == "a red circle" and len(items.texts.iloc[0]) == 5
    assert (items.tie_policy == "lenient").all() and (items.label == 0).all()
    with pytest.raises(ValueError, match="unknown caption_id"):
        order_items({0: perturbed}, captions.assign(caption_id="zz"))


def test_schema_rejects_bad_items():
    good = {"item_id": "a", "subset": "s", "image_ids": ["i"], "texts": ["x", "y"],
            "protocol": "i2t", "label": 1, "tie_policy": "strict"}
    make_items([good])
    with pytest.raises(ValueError, match="'b': label 2"):
        make_items([good, {**good, "item_id": "b", "label": 2}])
    with pytest.raises(ValueError, match="duplicate item_id 'a'"):
        make_items([good, good])
    with pytest.raises(ValueError, match="unknown protocol"):
        make_items([{**good, "protocol": "x2y"}])


def test_world_training_negatives_are_verified_false(world, world_cfg):
    from vlcomp.text.world_negatives import COLUMNS, world_negatives

    _, scenes, _, captions = world
    caps = captions.head(60)
    negs = world_negatives(scenes, caps, world_cfg, seed=0)
    oracle = Oracle(world_cfg)
    assert list(negs.columns) == COLUMNS and set(negs.subset) <= set(SUBSETS)
    assert negs.groupby(["caption_id", "subset"]).size().max() == 1
    assert negs.caption_id.nunique() > 0.9 * len(caps)
    for row in negs.itertuples():
        scene = scenes[row.image_id]
        assert oracle.is_true(row.text, scene) and not oracle.is_true(row.negative, scene)
    pd.testing.assert_frame_equal(negs, world_negatives(scenes, caps, world_cfg, seed=0))
    assert not negs.negative.equals(world_negatives(scenes, caps, world_cfg, seed=1).negative)
    with pytest.raises(ValueError, match="unknown subsets"):
        world_negatives(scenes, caps, world_cfg, seed=0, subsets=("swap_rel",))
