"""ARO VG-Relation and VG-Attribution items from world scenes (ARO appendix A procedure).

For every pair of objects of different categories we crop the union box and fill ARO's
templates: relations "the [obj1] is [relation] the [obj2]" vs the swapped "the [obj2] is
[relation] the [obj1]"; attributes "the [att1] [obj1] and the [att2] [obj2]" vs "the [att2]
[obj1] and the [att1] [obj2]". Texts are stored ``[false, true]`` with label 1 as in ARO, and
ties are wrong (ARO's argmax picks index 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations
from pathlib import Path

import pandas as pd

from vlcomp.io import open_rgb
from vlcomp.items import make_items
from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import true_relations
from vlcomp.world.oracle import Oracle
from vlcomp.world.prior import figure_first
from vlcomp.world.render import crop_union
from vlcomp.world.scene import SYMMETRIC_RELATIONS, Scene, WorldObject


def crop_id(scene: Scene, i: int, j: int) -> str:
    return f"{scene.scene_id}-crop{i}{j}"


def write_crops(scenes: Iterable[Scene], images: pd.DataFrame, crops_dir: Path) -> pd.DataFrame:
    """Crop the union box of every object pair; returns the image set (image_id, path)."""
    crops_dir.mkdir(parents=True, exist_ok=True)
    paths = dict(zip(images.image_id, images.path, strict=True))
    rows = []
    for scene in scenes:
        img = open_rgb(paths[scene.scene_id])
        for i, j in combinations(range(len(scene.objects)), 2):
            cid = crop_id(scene, i, j)
            path = crops_dir / f"{cid}.png"
            crop_union(img, [scene.objects[i], scene.objects[j]]).save(path)
            rows.append({"image_id": cid, "path": str(path), "scene_id": scene.scene_id})
    return pd.DataFrame(rows)


def _object_pairs(
    scenes: Iterable[Scene], stream: str, seed: int, shapes: tuple[str, ...] = (),
    subject_prior: float = 0.0,
) -> Iterator[tuple[Scene, WorldObject, WorldObject, str]]:
    """Every object pair of every scene, in a seeded random order, with its crop id;
    ``subject_prior`` puts the earlier of ``shapes`` first (`figure_first`)."""
    for scene in scenes:
        rng = stable_rng(stream, seed, scene.scene_id)
        for i, j in combinations(range(len(scene.objects)), 2):
            cid = crop_id(scene, i, j)
            ordered = figure_first(i, j, scene.objects, shapes, subject_prior, rng)
            if ordered:
                i, j = ordered
            elif rng.random() < 0.5:
                i, j = j, i
            yield scene, scene.objects[i], scene.objects[j], cid


def _choice_item(item_id: str, subset: str, crop: str, true: str, false: str, scene_id: str):
    """An ARO item: texts ``[false, true]``, label 1, ties wrong (argmax picks index 0)."""
    return {
        "item_id": item_id, "subset": subset, "image_ids": [crop], "texts": [false, true],
        "protocol": "i2t", "label": 1, "tie_policy": "strict", "scene_id": scene_id,
    }


def relation_items(scenes: Iterable[Scene], cfg: WorldConfig, seed: int) -> pd.DataFrame:
    """VG-Relation items: one per object pair and relation that holds; the subject is drawn at
    random, or by ``world.subject_prior`` as the world's captions draw it."""
    oracle, rows = Oracle(cfg), []
    for scene, a, b, cid in _object_pairs(scenes, "vg_relation", seed, cfg.shapes,
                                            cfg.subject_prior):
        for rel in true_relations(a, b, cfg.next_to_distance):
            true = f"the {a.shape} is {rel} the {b.shape}"
            false = f"the {b.shape} is {rel} the {a.shape}"
            if rel not in SYMMETRIC_RELATIONS and (
                not oracle.is_true(true, scene) or oracle.is_true(false, scene)
            ):
                raise AssertionError(f"{scene.scene_id}: oracle disagrees on {true!r}")
            item_id = f"{cid}-{rel.replace(' ', '_')}"
            rows.append(_choice_item(item_id, rel, cid, true, false, scene.scene_id))
    return make_items(rows)


def attribution_items(scenes: Iterable[Scene], cfg: WorldConfig, seed: int) -> pd.DataFrame:
    """VG-Attribution items: pairs whose shapes and colours both differ; subset "att1_att2"."""
    oracle, rows = Oracle(cfg), []
    for scene, a, b, cid in _object_pairs(scenes, "vg_attribution", seed):
        if a.color == b.color or a.shape == b.shape:
            continue
        true = f"the {a.color} {a.shape} and the {b.color} {b.shape}"
        false = f"the {b.color} {a.shape} and the {a.color} {b.shape}"
        if not oracle.is_true(true, scene) or oracle.is_true(false, scene):
            raise AssertionError(f"{scene.scene_id}: oracle disagrees on {true!r}")
        rows.append(_choice_item(cid, f"{a.color}_{b.color}", cid, true, false, scene.scene_id))
    return make_items(rows)
