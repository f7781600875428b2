"""The world's scene prior: canonical arrangements and usual colours, off by default."""

from __future__ import annotations

import numpy as np
import pytest

from vlcomp.benchmarks.aro_vg import relation_items
from vlcomp.seeding import stable_rng
from vlcomp.world.captions import scene_captions
from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import layout_is_valid
from vlcomp.world.grammar import render_caption
from vlcomp.world.prior import (
    apply_scene_prior,
    arrange_in_order,
    figure_first,
    follows_order,
    ordered_pairs,
    usual_color,
)
from vlcomp.world.sampler import sample_scene
from vlcomp.world.scene import WorldObject

SHAPES = ("circle", "square", "triangle", "diamond", "cross")
COLORS = ("red", "green", "blue", "yellow", "purple", "white")


def obj(shape, color, x, y):
    return WorldObject(shape, color, "small", x, y, 0.1)


def pair_share(cfg: WorldConfig, n: int = 300) -> tuple[float, float]:
    """Share of object pairs in canonical order, and of objects in their usual colour."""
    ordered = pairs = usual = objects = 0
    for i in range(n):
        scene = sample_scene(cfg, "test", i)
        k = len(scene.objects)
        ordered += ordered_pairs(scene.objects, cfg.shapes)
        pairs += k * (k - 1) // 2
        usual += sum(o.color == usual_color(o.shape, cfg.shapes, cfg.colors) for o in scene.objects)
        objects += k
    return ordered / pairs, usual / objects


def test_canonical_order_reads_the_shape_list():
    circle_left = (obj("circle", "red", 0.2, 0.5), obj("square", "blue", 0.8, 0.5))
    circle_below = (obj("circle", "red", 0.5, 0.8), obj("square", "blue", 0.5, 0.2))
    assert follows_order(*circle_left, SHAPES) and follows_order(*circle_left[::-1], SHAPES)
    assert not follows_order(*circle_below, SHAPES)
    assert ordered_pairs(circle_left, SHAPES) == 1 and ordered_pairs(circle_below, SHAPES) == 0
    assert usual_color("circle", SHAPES, COLORS) == "red"
    assert usual_color("cross", SHAPES, COLORS) == "purple"
    assert usual_color("cross", SHAPES, ("red", "green")) == "red"  # wraps around


def test_arrange_swaps_shapes_with_their_colours_and_keeps_positions():
    scene = (obj("triangle", "blue", 0.15, 0.5), obj("circle", "red", 0.5, 0.5),
             obj("square", "green", 0.85, 0.5))
    arranged = arrange_in_order(scene, SHAPES)
    assert [o.shape for o in arranged] == ["circle", "square", "triangle"]
    assert [o.color for o in arranged] == ["red", "green", "blue"]
    assert [(o.x, o.y, o.size) for o in arranged] == [(o.x, o.y, o.size) for o in scene]
    assert ordered_pairs(arranged, SHAPES) == 3


def test_zero_prior_leaves_scenes_as_drawn():
    scene = (obj("triangle", "blue", 0.2, 0.5), obj("circle", "white", 0.8, 0.5))
    rng = np.random.default_rng(0)
    assert apply_scene_prior(scene, SHAPES, COLORS, 0.0, 0.0, rng) == scene
    # a full prior always applies both
    full = apply_scene_prior(scene, SHAPES, COLORS, 1.0, 1.0, rng)
    assert [(o.shape, o.color) for o in full] == [("circle", "red"), ("triangle", "blue")]


def test_sampler_prior_is_seeded_valid_and_has_its_strength(world_cfg):
    balanced = WorldConfig(splits=world_cfg.splits)
    skewed = WorldConfig(splits=world_cfg.splits, relation_prior=0.8, attribute_prior=0.5)
    # the balanced world is untouched by the prior's generator
    assert sample_scene(balanced, "test", 3) == sample_scene(WorldConfig(
        splits=world_cfg.splits, relation_prior=0.0), "test", 3)
    assert [sample_scene(skewed, "test", i) for i in range(10)] == [
        sample_scene(skewed, "test", i) for i in range(10)]
    for i in range(50):
        s = sample_scene(skewed, "test", i)
        assert layout_is_valid(s.objects, skewed.min_axis_ratio, skewed.min_gap)
        assert len({o.shape for o in s.objects}) == len(s.objects)
    order0, colour0 = pair_share(balanced)
    order1, colour1 = pair_share(skewed)
    assert abs(order0 - 0.5) < 0.07 and abs(colour0 - 1 / 6) < 0.05
    # 80 % of scenes arranged, the rest half in order: about 0.9; usual colour 0.5 + 0.5 / 6
    assert order1 == pytest.approx(0.9, abs=0.04)
    assert colour1 == pytest.approx(0.5 + 0.5 / 6, abs=0.05)


@pytest.mark.parametrize("key", ["relation_prior", "attribute_prior"])
def test_prior_outside_unit_interval_is_refused(key):
    with pytest.raises(ValueError, match=f"world.{key}"):
        WorldConfig.from_dict({key: 1.5})


def test_figure_first_names_the_earlier_shape_with_the_given_chance():
    objects = (obj("square", "red", 0.2, 0.5), obj("circle", "blue", 0.8, 0.5))
    rng = np.random.default_rng(0)
    assert figure_first(0, 1, objects, SHAPES, 0.0, rng) is None
    assert rng.random() == np.random.default_rng(0).random()  # no draw at 0
    assert figure_first(0, 1, objects, SHAPES, 1.0, rng) == (1, 0)
    assert figure_first(1, 0, objects, SHAPES, 1.0, rng) == (1, 0)
    draws = [figure_first(0, 1, objects, SHAPES, 0.3, rng) for _ in range(2000)]
    assert 0.26 < sum(d is not None for d in draws) / len(draws) < 0.34


def test_subject_prior_orders_relation_captions_and_vg_relation_items():
    cfg = WorldConfig(subject_prior=1.0, splits={"train": 40, "val": 1, "test": 40})
    scenes = [sample_scene(cfg, "test", i) for i in range(40)]
    rank = {s: k for k, s in enumerate(cfg.shapes)}
    relations = 0
    for scene in scenes:
        for _, spec in scene_captions(scene, cfg, stable_rng("captions", 0, scene.scene_id)):
            for c in spec.clauses:
                if c.object is not None:
                    relations += 1
                    assert rank[c.subject.shape] < rank[c.object.shape], render_caption(spec)
    assert relations > 40
    items = relation_items(scenes, cfg, seed=0)
    firsts = [t[1].split(" is ")[0].removeprefix("the ") for t in items.texts]
    seconds = [t[1].rsplit(" the ", 1)[1] for t in items.texts]
    assert all(rank[a] < rank[b] for a, b in zip(firsts, seconds, strict=True))
    balanced = relation_items(scenes, WorldConfig(splits=cfg.splits), seed=0)
    shares = [rank[t[1].split(" is ")[0].removeprefix("the ")] < rank[t[1].rsplit(" the ", 1)[1]]
              for t in balanced.texts]
    assert 0.35 < sum(shares) / len(shares) < 0.65
    with pytest.raises(ValueError, match=r"world\.subject_prior"):
        WorldConfig.from_dict({"subject_prior": -0.1})
