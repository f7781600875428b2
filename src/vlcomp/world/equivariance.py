"""EqBen-style pairs from world scenes: a visual-minimal change (Wang et al., ICCV 2023).

EqBen pairs two images that differ by one small visual change (a frame later in a video, a
Kubric object moved, recoloured or added, a Stable-Diffusion edit), each with its caption.
Here image 0 is a test scene and image 1 the same scene with exactly one object changed in
one property; caption 1 is caption 0 with the words for that property rewritten, so the
captions differ minimally too. The oracle checks that each caption is true of its own image
and false of the other.

Subsets and their EqBen counterparts: ``attr`` (one object's colour or size; Kubric-attr),
``loc`` (one object moved so a stated relation changes; Kubric-loc), ``obj`` (one object's
shape replaced by one absent from the scene; the one-word SD edits). Kubric-cnt has no
counterpart: the grammar has no numerals or "only", so removing or adding an object cannot
make a caption false of one image and true of the other in both directions. The video
sub-benchmarks (AG, YouCook2, GEBC) change actions over time, which the world lacks.
"""

from __future__ import annotations

import pandas as pd

from vlcomp.items import make_items
from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.edits import verified_negative
from vlcomp.world.grammar import CaptionSpec
from vlcomp.world.oracle import Oracle
from vlcomp.world.scene import Scene

# subset -> the scene edit (`vlcomp.world.edits`) that makes it
EDIT_OF = {"attr": "replace_att", "loc": "replace_rel", "obj": "replace_obj"}
SUBSETS = tuple(EDIT_OF)


def changed_objects(before: Scene, after: Scene) -> list[int]:
    """Indices of the objects that differ between two scenes with the same object count."""
    if len(before.objects) != len(after.objects):
        raise ValueError(f"{before.scene_id} / {after.scene_id}: object counts differ")
    return [k for k, (a, b) in enumerate(zip(before.objects, after.objects, strict=True))
            if a != b]


def equivariance_items(
    scenes: dict[str, Scene], captions: pd.DataFrame, cfg: WorldConfig, seed: int,
    subsets: tuple[str, ...] = SUBSETS,
) -> tuple[pd.DataFrame, list[Scene]]:
    """Pair items (choice schema, ``pair``, label 0, strict ties; ``image_ids`` and ``texts``
    aligned) and the edited scene of each item (its id is the item's second image id).

    Per scene (sorted) and subset, the scene's captions are tried in an order seeded by
    (seed, scene, subset); the first whose edit changes one object, gives a caption false of
    the scene and true of the edited scene, and whose own caption is false of the edited
    scene, is kept. ``captions``: the world's caption table (image_id, caption_id, text, spec).
    """
    unknown = set(subsets) - set(SUBSETS)
    if unknown:
        raise ValueError(f"unknown EqBen-style subset(s) {sorted(unknown)}; "
                         f"known: {list(SUBSETS)}")
    missing = [c for c in ("image_id", "caption_id", "text", "spec") if c not in captions]
    if missing:
        raise ValueError(f"caption table lacks column(s) {missing}")
    oracle, rows, edited = Oracle(cfg), [], []
    by_image = {k: g for k, g in captions.groupby("image_id", sort=True)}
    for scene_id in sorted(scenes):
        scene, caps = scenes[scene_id], by_image.get(scene_id)
        if caps is None:
            continue
        for subset in subsets:
            rng = stable_rng("equivariance", seed, scene_id, subset)
            for k in rng.permutation(len(caps)):
                cap = caps.iloc[int(k)]
                spec = CaptionSpec.from_json(cap.spec)
                found = verified_negative(EDIT_OF[subset], cap.text, spec, scene, rng, cfg,
                                          oracle)
                if found is None:
                    continue
                text_1, edit = found
                if len(changed_objects(scene, edit.scene)) != 1 or oracle.is_true(
                        spec, edit.scene):
                    continue
                item_id = f"eqben-{subset}-{scene_id}"
                image_1 = f"{item_id}-1"
                rows.append({
                    "item_id": item_id, "subset": subset, "image_ids": [scene_id, image_1],
                    "texts": [str(cap.text), text_1], "protocol": "pair", "label": 0,
                    "tie_policy": "strict", "caption_id": cap.caption_id,
                })
                edited.append(edit.scene.with_objects(edit.scene.objects, image_1))
                break
    if not rows:
        raise ValueError("no EqBen-style pair could be made from these scenes")
    return make_items(rows), edited
