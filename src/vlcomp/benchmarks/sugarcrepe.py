"""SugarCrepe-style items from world scenes: 7 subsets made by scene-graph edits.

A positive is one of the scene's own captions; the negative is the same caption structure
written about an edited scene (see ``vlcomp.world.edits``), so it is fluent by construction;
the oracle confirms it is false of the image. Each scene contributes at most one item per
subset. The edited scenes are kept: they are what BiVLC-style negative images depict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pandas as pd

from vlcomp.items import make_items
from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.edits import SUBSETS, Edit, verified_negative
from vlcomp.world.grammar import CaptionSpec
from vlcomp.world.oracle import Oracle
from vlcomp.world.scene import Scene


def first_verified_edits(
    scenes: dict[str, Scene], captions: pd.DataFrame, cfg: WorldConfig, seed: int,
    subsets: Sequence[str], stream: str, accept: Callable[..., bool] = lambda *_: True,
) -> Iterator[tuple[str, str, Any, CaptionSpec, str, Edit]]:
    """Per scene (sorted) and subset, the first of the scene's captions, in an order seeded by
    (``stream``, seed, scene, subset), whose edit gives an oracle-verified negative that
    ``accept(caption_row, spec, negative, edit)`` keeps: (scene id, subset, caption row,
    spec, negative, edit)."""
    oracle = Oracle(cfg)
    by_image = {k: g for k, g in captions.groupby("image_id", sort=True)}
    for scene_id in sorted(scenes):
        scene = scenes[scene_id]
        caps = by_image.get(scene_id)
        if caps is None:
            continue
        for subset in subsets:
            rng = stable_rng(stream, seed, scene_id, subset)
            for k in rng.permutation(len(caps)):
                cap = caps.iloc[int(k)]
                spec = CaptionSpec.from_json(cap.spec)
                found = verified_negative(subset, cap.text, spec, scene, rng, cfg, oracle)
                if found is not None and accept(cap, spec, *found):
                    yield scene_id, subset, cap, spec, *found
                    break


def sugarcrepe_items(
    scenes: dict[str, Scene], captions: pd.DataFrame, cfg: WorldConfig, seed: int,
    subsets: tuple[str, ...] = SUBSETS,
) -> tuple[pd.DataFrame, list[Scene]]:
    """Items (choice schema, plus type/subtype/caption_id/positive_false_on_negative) and the
    edited scene of each item (scene_id = ``{item_id}-neg``)."""
    oracle, rows, edited = Oracle(cfg), [], []
    for scene_id, subset, cap, spec, negative, edit in first_verified_edits(
            scenes, captions, cfg, seed, subsets, "sugarcrepe"):
        item_id = f"{subset}-{scene_id}"
        kind, sub = subset.split("_")
        rows.append({
            "item_id": item_id, "subset": subset, "image_ids": [scene_id],
            "texts": [cap.text, negative], "protocol": "i2t", "label": 0,
            "tie_policy": "strict", "type": kind, "subtype": sub,
            "caption_id": cap.caption_id,
            "positive_false_on_negative": not oracle.is_true(spec, edit.scene),
        })
        edited.append(edit.scene.with_objects(edit.scene.objects, f"{item_id}-neg"))
    return make_items(rows), edited
