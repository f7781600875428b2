"""A shape-classification set of the world: the analogue of CIFAR / ImageNet for ARO Table 6.

Each image is a single-object scene rendered as the world renders every scene; its class is
the object's shape (label = index in ``cfg.shapes``), so the classes are balanced: image
``index`` of a split shows shape ``index % n_shapes``. Colour, size and position are drawn
from a generator seeded by ``(seed, cfg.seed, split, index)``. The zero-shot prompts are
sentences of the world's caption grammar with the shape as the only word of the noun phrase
(``WORLD_TEMPLATES``, in the captions' sentence case).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from vlcomp.io import atomic_path
from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.grammar import CaptionSpec, Clause, NounPhrase, render_caption
from vlcomp.world.render import render_scene
from vlcomp.world.sampler import place_object
from vlcomp.world.scene import Scene

WORLD_TEMPLATES = ("A {}.", "There is a {}.", "The {}.")
TEMPLATE_STYLES = ("plain", "there", "definite")
DEFAULT_SIZES = {"train": 1000, "test": 500}


def world_class_names(cfg: WorldConfig) -> list[str]:
    """The class names: the world's shapes, in label order."""
    return list(cfg.shapes)


def world_templates(cfg: WorldConfig) -> list[str]:
    """``WORLD_TEMPLATES``, checked against the grammar: each filled template must be the
    caption the grammar renders for a lone shape (a shape needing "an" is an error)."""
    for shape in cfg.shapes:
        for template, style in zip(WORLD_TEMPLATES, TEMPLATE_STYLES, strict=True):
            spec = CaptionSpec((Clause(NounPhrase(shape)),), style=style)
            if render_caption(spec) != template.format(shape):
                raise ValueError(f"world.shapes: {shape!r} does not fit template {template!r} "
                                 f"(the grammar writes {render_caption(spec)!r})")
    return list(WORLD_TEMPLATES)


def classification_scene(cfg: WorldConfig, split: str, index: int, seed: int) -> Scene:
    """Image ``index`` of ``split``: one object of shape ``index % n_shapes``."""
    rng = stable_rng("world-classification", seed, cfg.seed, split, index)
    label = index % len(cfg.shapes)
    sizes = sorted(cfg.sizes)
    while True:
        color = cfg.colors[int(rng.integers(len(cfg.colors)))]
        size = sizes[int(rng.integers(len(sizes)))]
        obj = place_object(rng, cfg.shapes[label], color, size, [], cfg)
        if obj is not None:
            return Scene(f"cls-{split}-{index:06d}", split, (obj,), meta={"label": label})


def classification_scenes(cfg: WorldConfig, seed: int,
                          sizes: Mapping[str, int] | None = None) -> list[Scene]:
    """Every scene of every split (``sizes``: images per split, default
    ``DEFAULT_SIZES``), splits in the given order, images in index order."""
    sizes = dict(DEFAULT_SIZES if sizes is None else sizes)
    bad = {s: n for s, n in sizes.items() if n < 1}
    if bad:
        raise ValueError(f"classification sizes must be >= 1, got {bad}")
    return [classification_scene(cfg, split, i, seed)
            for split, n in sizes.items() for i in range(n)]


def render_classification_set(scenes: list[Scene], cfg: WorldConfig, out_dir: str | Path
                              ) -> pd.DataFrame:
    """Render each scene to ``out_dir/{scene_id}.png`` (atomic writes) and return the table
    ``image_id, path, label, split, class_name, color, size``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for scene in scenes:
        path = out_dir / f"{scene.scene_id}.png"
        with atomic_path(path) as tmp:
            render_scene(scene, cfg).save(tmp, format="PNG")
        obj = scene.objects[0]
        rows.append({"image_id": scene.scene_id, "path": str(path),
                     "label": int(scene.meta["label"]), "split": scene.split,
                     "class_name": obj.shape, "color": obj.color, "size": obj.size})
    return pd.DataFrame(rows)
