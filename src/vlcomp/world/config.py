"""Configuration of the synthetic world (every size and vocabulary is a config key)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class WorldConfig:
    """Parameters of the procedural world; mirrors the ``world:`` block of config.yaml."""

    seed: int = 0
    image_size: int = 64
    splits: dict[str, int] = field(
        default_factory=lambda: {"train": 8000, "val": 500, "test": 1000}
    )
    min_objects: int = 2
    max_objects: int = 3
    shapes: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "cross")
    colors: tuple[str, ...] = ("red", "green", "blue", "yellow", "purple", "white")
    sizes: dict[str, float] = field(default_factory=lambda: {"small": 0.1, "large": 0.16})
    captions_per_image: int = 5
    min_axis_ratio: float = 2.0
    min_gap: float = 0.04
    next_to_distance: float = 0.4
    background: tuple[int, int, int] = (96, 96, 96)
    supersample: int = 4
    relation_prior: float = 0.0
    attribute_prior: float = 0.0
    place_phrases: float = 0.0
    subject_prior: float = 0.0

    @staticmethod
    def from_dict(d: dict[str, Any]) -> WorldConfig:
        """Build from a config mapping; unknown keys raise an error naming them."""
        known = {f.name for f in fields(WorldConfig)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"world: unknown key(s) {unknown}; known keys: {sorted(known)}")
        kw = dict(d)
        for key in ("shapes", "colors", "background"):
            if key in kw:
                kw[key] = tuple(kw[key])
        cfg = WorldConfig(**kw)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Check consistency; errors name the offending key."""
        if not 1 <= self.min_objects <= self.max_objects:
            raise ValueError("world.min_objects/max_objects: need 1 <= min_objects <= max_objects")
        if self.max_objects > len(self.shapes):
            raise ValueError("world.max_objects: shapes are distinct per scene, need enough shapes")
        for key in ("shapes", "colors"):
            values = getattr(self, key)
            if len(set(values)) != len(values) or len(values) < 2:
                raise ValueError(f"world.{key}: need at least two distinct values")
        if len(self.sizes) < 1 or any(not 0 < v < 0.5 for v in self.sizes.values()):
            raise ValueError("world.sizes: half-extents must be in (0, 0.5)")
        for key in ("relation_prior", "attribute_prior", "place_phrases", "subject_prior"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise ValueError(f"world.{key}: must be in [0, 1]")
        if self.captions_per_image < 1:
            raise ValueError("world.captions_per_image: must be >= 1")
