"""The synthetic world: determinism, geometry, captions, parser and oracle."""

from __future__ import annotations

import dataclasses
import hashlib
from itertools import combinations

import numpy as np
import pytest

from vlcomp.data.world import build_world, read_scenes
from vlcomp.seeding import stable_rng
from vlcomp.world.captions import scene_captions
from vlcomp.world.compose import compose_scene
from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import direction, holds, layout_is_valid, place_of
from vlcomp.world.grammar import CaptionParseError, CaptionSpec, Clause, NounPhrase, render_caption
from vlcomp.world.oracle import Oracle
from vlcomp.world.render import crop_union, render_scene
from vlcomp.world.sampler import sample_scene
from vlcomp.world.scene import (
    ABOVE,
    AT_THE_BOTTOM,
    AT_THE_TOP,
    BELOW,
    INVERSE,
    LEFT_OF,
    NEXT_TO,
    ON_THE_LEFT,
    ON_THE_RIGHT,
    RIGHT_OF,
    Scene,
    WorldObject,
)


def obj(shape, color, x, y, size="small", extent=0.1):
    return WorldObject(shape, color, size, x, y, extent)


TWO = Scene("s", "test", (obj("circle", "red", 0.2, 0.5), obj("square", "blue", 0.8, 0.5, "large")))


def test_scenes_are_deterministic_and_order_independent(world_cfg):
    a = [sample_scene(world_cfg, "test", i) for i in range(20)]
    b = [sample_scene(world_cfg, "test", i) for i in reversed(range(20))][::-1]
    assert a == b
    other_seed = WorldConfig(seed=1, splits=world_cfg.splits)
    assert a != [sample_scene(other_seed, "test", i) for i in range(20)]


def test_scenes_respect_config(world_cfg):
    for i in range(50):
        s = sample_scene(world_cfg, "train", i)
        assert world_cfg.min_objects <= len(s.objects) <= world_cfg.max_objects
        assert len({o.shape for o in s.objects}) == len(s.objects)
        assert layout_is_valid(s.objects, world_cfg.min_axis_ratio, world_cfg.min_gap)
        assert all(o.extent == world_cfg.sizes[o.size] for o in s.objects)


def test_relations_from_geometry():
    a, b = TWO.objects
    assert direction(a, b) == LEFT_OF and direction(b, a) == RIGHT_OF
    top, bottom = obj("circle", "red", 0.5, 0.2), obj("square", "red", 0.5, 0.8)
    assert direction(top, bottom) == ABOVE and direction(bottom, top) == BELOW
    for rel in (LEFT_OF, RIGHT_OF, ABOVE, BELOW):
        assert INVERSE[INVERSE[rel]] == rel
    assert holds(a, NEXT_TO, b, 0.7) and holds(b, NEXT_TO, a, 0.7)
    assert not holds(a, NEXT_TO, b, 0.5)


def test_render_is_deterministic_and_draws_colours(world_cfg):
    img = render_scene(TWO, world_cfg)
    assert img.size == (world_cfg.image_size, world_cfg.image_size)
    px = np.asarray(img)
    s = world_cfg.image_size
    assert tuple(px[s // 2, int(0.2 * s)]) == (220, 40, 40)  # red circle centre
    assert tuple(px[s // 2, int(0.8 * s)]) == (45, 80, 220)  # blue square centre
    assert tuple(px[2, 2]) == world_cfg.background
    assert np.array_equal(px, np.asarray(render_scene(TWO, world_cfg)))


def test_crop_union_is_square_and_holds_both_objects(world_cfg):
    img = render_scene(TWO, world_cfg)
    crop = crop_union(img, list(TWO.objects))
    assert crop.size[0] == crop.size[1]
    colours = {tuple(c) for c in np.asarray(crop).reshape(-1, 3)}
    assert (220, 40, 40) in colours and (45, 80, 220) in colours


def test_captions_are_true_and_parse_back(world_cfg):
    oracle = Oracle(world_cfg)
    templates = set()
    for i in range(60):
        scene = sample_scene(world_cfg, "train", i)
        caps = scene_captions(scene, world_cfg, stable_rng("captions", 0, scene.scene_id))
        assert len(caps) == world_cfg.captions_per_image
        texts = [render_caption(spec) for _, spec in caps]
        assert len(set(texts)) == len(texts)
        for (template, _spec), text in zip(caps, texts, strict=True):
            templates.add(template)
            assert text[0].isupper() and text.endswith(".")
            assert oracle.is_true(text, scene), text
            assert render_caption(oracle.parser.parse(text)) == text
    assert {"list_shapes", "relation_fine", "relation_coarse"} <= templates


def test_parser_structures_and_errors(world_cfg):
    parser = Oracle(world_cfg).parser
    spec = parser.parse("There is a small red circle to the left of a large blue square.")
    assert spec.style == "there"
    (clause,) = spec.clauses
    assert clause.subject == NounPhrase("circle", "red", "small")
    assert clause.relation == LEFT_OF and clause.object == NounPhrase("square", "blue", "large")
    assert parser.parse("the circle is above the square").style == "definite"
    spec = parser.parse("A circle, a white cross and a square.")
    assert [c.subject.shape for c in spec.clauses] == ["circle", "cross", "square"]
    for bad in ("a dog near a cat", "circle above square", "a circle above", "a red"):
        with pytest.raises(CaptionParseError, match="cannot parse"):
            parser.parse(bad)


def test_oracle_judges_relations_attributes_and_counts(world_cfg):
    o = Oracle(world_cfg)
    assert o.is_true("A red circle to the left of a blue square.", TWO)
    assert not o.is_true("A blue circle to the left of a red square.", TWO)  # attribute swap
    assert not o.is_true("A square to the left of a circle.", TWO)  # relation swap
    assert not o.is_true("A circle above a square.", TWO)
    assert o.is_true("the circle is to the left of the square", TWO)
    assert o.is_true("A small circle and a large square.", TWO)
    assert not o.is_true("A large circle and a large square.", TWO)
    assert not o.is_true("A circle and a circle.", TWO)  # phrases need distinct objects
    assert not o.is_true("A circle, a square and a cross.", TWO)
    spec = CaptionSpec((Clause(NounPhrase("square"), RIGHT_OF, NounPhrase("circle")),))
    assert o.is_true(spec, TWO)


def test_spec_json_round_trip():
    spec = CaptionSpec((Clause(NounPhrase("circle", "red", ref=0), ABOVE, NounPhrase("cross")),
                        Clause(NounPhrase("square", size="large", ref=2))), "there")
    assert CaptionSpec.from_json(spec.to_json()) == spec
    assert '"place"' not in spec.to_json()  # the format stored before places existed


def test_config_rejects_unknown_and_inconsistent_keys():
    with pytest.raises(ValueError, match="unknown key"):
        WorldConfig.from_dict({"colours": ["red"]})
    with pytest.raises(ValueError, match="max_objects"):
        WorldConfig.from_dict({"max_objects": 9})


def _tree_digest(root):
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def test_build_world_is_byte_identical(tmp_path, world_cfg):
    digests = []
    for run in ("a", "b"):
        d = tmp_path / run
        build_world(world_cfg, d / "images", d / "images.parquet", d / "captions.parquet",
                    d / "scenes.jsonl")
        digests.append(_tree_digest(d / "images"))
        scenes = read_scenes(d / "scenes.jsonl")
        assert len(scenes) == sum(world_cfg.splits.values())
        digests.append(hashlib.sha256((d / "scenes.jsonl").read_bytes()).hexdigest())
    assert digests[0] == digests[2] and digests[1] == digests[3]


def test_read_scenes_names_bad_line(tmp_path):
    p = tmp_path / "scenes.jsonl"
    p.write_text(TWO.to_json() + "\n{not json}\n")
    with pytest.raises(ValueError, match=r"scenes.jsonl:2"):
        read_scenes(p)


def test_pairs_in_scene_have_exactly_one_direction(world_cfg):
    for i in range(30):
        s = sample_scene(world_cfg, "test", i)
        for a, b in combinations(s.objects, 2):
            rels = [r for r in (LEFT_OF, RIGHT_OF, ABOVE, BELOW) if holds(a, r, b, 0.4)]
            assert rels == [direction(a, b)]


def test_place_of_reads_the_dominant_side_and_leaves_the_centre_unnamed():
    assert place_of(obj("circle", "red", 0.2, 0.55)) == ON_THE_LEFT
    assert place_of(obj("circle", "red", 0.8, 0.3)) == ON_THE_RIGHT
    assert place_of(obj("circle", "red", 0.45, 0.2)) == AT_THE_TOP
    assert place_of(obj("circle", "red", 0.6, 0.85)) == AT_THE_BOTTOM
    assert place_of(obj("circle", "red", 0.55, 0.45)) is None


def test_place_phrases_parse_render_judge_and_compose(world_cfg):
    o = Oracle(world_cfg)
    spec = o.parser.parse("A red circle on the left and a large square on the right.")
    assert [c.place for c in spec.clauses] == [ON_THE_LEFT, ON_THE_RIGHT]
    assert spec.clauses[1].subject == NounPhrase("square", size="large")
    assert CaptionSpec.from_json(spec.to_json()) == spec
    assert render_caption(spec) == "A red circle on the left and a large square on the right."
    assert o.is_true(spec, TWO)
    assert not o.is_true("A red circle on the right and a square on the left.", TWO)  # swapped
    assert not o.is_true("A circle at the top.", TWO)
    assert o.parser.parse("the circle is on the left").style == "definite"
    assert o.is_true("the circle is on the left", TWO)
    with pytest.raises(CaptionParseError, match="cannot parse"):
        o.parser.parse("a circle on the left of a square")
    rng = np.random.default_rng(0)
    for text in ("A red circle on the left and a cross at the bottom.",
                 "A square at the top and a circle."):
        scene = compose_scene(o.parser.parse(text), world_cfg, rng, "c")
        assert scene is not None and o.is_true(text, scene), text


def test_place_phrases_are_true_and_off_by_default(world_cfg):
    placed = dataclasses.replace(world_cfg, place_phrases=1.0)
    oracle = Oracle(placed)
    said = 0
    for i in range(40):
        scene = sample_scene(placed, "train", i)
        plain = scene_captions(scene, world_cfg, stable_rng("captions", 0, scene.scene_id))
        caps = scene_captions(scene, placed, stable_rng("captions", 0, scene.scene_id))
        assert not any(c.place for _, spec in plain for c in spec.clauses)
        for template, spec in caps:
            places = [c.place for c in spec.clauses if c.place]
            said += len(places)
            assert not places or template in ("list_attributes", "relation_and")
            assert oracle.is_true(render_caption(spec), scene)
    assert said > 40
    with pytest.raises(ValueError, match=r"world\.place_phrases"):
        WorldConfig.from_dict({"place_phrases": 1.5})
