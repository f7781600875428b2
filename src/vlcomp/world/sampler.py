"""Deterministic sampling of scenes: each scene draws from its own seeded generator."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import inside, layout_is_valid, pair_is_clear
from vlcomp.world.prior import apply_scene_prior
from vlcomp.world.scene import Scene, WorldObject

MAX_PLACEMENT_TRIES = 200


def scene_id(split: str, index: int) -> str:
    return f"{split}-{index:06d}"


def place_object(
    rng: np.random.Generator,
    shape: str,
    color: str,
    size: str,
    others: list[WorldObject],
    cfg: WorldConfig,
) -> WorldObject | None:
    """Place one object at a random free spot, or None if none was found."""
    extent = cfg.sizes[size]
    for _ in range(MAX_PLACEMENT_TRIES):
        x, y = rng.uniform(extent + 0.02, 1 - extent - 0.02, size=2)
        cand = WorldObject(shape, color, size, round(float(x), 4), round(float(y), 4), extent)
        if inside(cand) and all(
            pair_is_clear(cand, o, cfg.min_axis_ratio, cfg.min_gap) for o in others
        ):
            return cand
    return None


def sample_scene(cfg: WorldConfig, split: str, index: int) -> Scene:
    """Sample scene ``index`` of ``split``: 2–3 objects with distinct shapes, clear layout,
    then the scene prior (`vlcomp.world.prior`) from a generator of its own."""
    rng = stable_rng("scene", cfg.seed, split, index)
    size_names = sorted(cfg.sizes)
    while True:
        n = int(rng.integers(cfg.min_objects, cfg.max_objects + 1))
        shapes = rng.choice(len(cfg.shapes), size=n, replace=False)
        objects: list[WorldObject] = []
        for s in shapes:
            color = cfg.colors[int(rng.integers(len(cfg.colors)))]
            size = size_names[int(rng.integers(len(size_names)))]
            obj = place_object(rng, cfg.shapes[int(s)], color, size, objects, cfg)
            if obj is None:
                break
            objects.append(obj)
        if len(objects) == n and layout_is_valid(objects, cfg.min_axis_ratio, cfg.min_gap):
            prior_rng = stable_rng("scene_prior", cfg.seed, split, index)
            arranged = apply_scene_prior(tuple(objects), cfg.shapes, cfg.colors,
                                         cfg.relation_prior, cfg.attribute_prior, prior_rng)
            return Scene(scene_id(split, index), split, arranged)


def sample_split(cfg: WorldConfig, split: str) -> Iterator[Scene]:
    """All scenes of one split, in index order."""
    for i in range(cfg.splits[split]):
        yield sample_scene(cfg, split, i)
