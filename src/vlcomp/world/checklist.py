"""A VL-CheckList-style Relation set from world scenes (Zhao et al., 2022, "Relation/spatial").

VL-CheckList's spatial entries are a short "subject REL object" caption true of the image and
the same caption with the relation replaced ("bus ON street" / "bus under street", "tracks
next to train" / "tracks far from train"). Here: for every object pair of a scene (subject
and object drawn by a seeded coin, as in the world's ARO set) and every relation true of it
(the direction, plus "next to" when close), the positive is "a <subject> REL a <object>" and
the negative replaces REL by a relation the oracle judges false of the scene.

Negative relation: ``inverse`` (default; VL-CheckList mostly uses the opposite: ON/under,
behind/in front of, above/below) swaps left/right and above/below; "next to" has no opposite
in the world's grammar ("far from" is not in it), so it takes a seeded false direction.
``random`` draws any false relation. The world has spatial relations only (geometry.py), so
there is no "action" analogue: every item is in subset ``spatial``, corpus ``world``.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import numpy as np
import pandas as pd

from vlcomp.items import make_items
from vlcomp.seeding import stable_rng
from vlcomp.world.captions import SHAPE, noun_phrase
from vlcomp.world.config import WorldConfig
from vlcomp.world.geometry import true_relations
from vlcomp.world.grammar import CaptionSpec, Clause, render_caption
from vlcomp.world.oracle import Oracle
from vlcomp.world.scene import ASYMMETRIC_RELATIONS, INVERSE, NEXT_TO, RELATIONS, Scene

STRATEGIES = ("inverse", "random")
CORPUS = "world"
SUBSET = "spatial"


def _candidates(rel: str, strategy: str, rng: np.random.Generator) -> list[str]:
    """Negative relations to try for a true ``rel``, most preferred first."""
    if strategy == "inverse" and rel != NEXT_TO:
        return [INVERSE[rel]]
    pool = ASYMMETRIC_RELATIONS if strategy == "inverse" else RELATIONS
    return [str(r) for r in rng.permutation([r for r in pool if r != rel])]


def checklist_items(
    scenes: Iterable[Scene], cfg: WorldConfig, seed: int, *, strategy: str = "inverse",
    detail: str = SHAPE,
) -> pd.DataFrame:
    """Items (``i2t``, texts ``[positive, negative]``, label 0, strict ties as VL-CheckList's
    ``>``; extra columns ``corpus``, ``scene_id``, ``relation``, ``negative_relation``).

    ``detail``: how noun phrases are written (captions.py: shape, color, full or mixed).
    A pair whose negatives are all true of the scene (possible only with ambiguous phrases)
    gives no item; a positive the oracle rejects is an error.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    oracle, rows = Oracle(cfg), []
    for scene in scenes:
        rng = stable_rng("vl_checklist", seed, scene.scene_id)
        for i, j in combinations(range(len(scene.objects)), 2):
            if rng.random() < 0.5:
                i, j = j, i
            subject = noun_phrase(scene, i, detail, rng)
            obj = noun_phrase(scene, j, detail, rng)
            for rel in true_relations(scene.objects[i], scene.objects[j], cfg.next_to_distance):
                positive = CaptionSpec((Clause(subject, rel, obj),))
                if not oracle.is_true(positive, scene):
                    raise AssertionError(f"{scene.scene_id}: oracle rejects "
                                         f"{render_caption(positive, False)!r}")
                for neg_rel in _candidates(rel, strategy, rng):
                    negative = CaptionSpec((Clause(subject, neg_rel, obj),))
                    if not oracle.is_true(negative, scene):
                        break
                else:
                    continue
                rows.append({
                    "item_id": f"{scene.scene_id}-{i}_{j}-{rel.replace(' ', '_')}",
                    "subset": SUBSET, "image_ids": [scene.scene_id],
                    "texts": [render_caption(positive, False), render_caption(negative, False)],
                    "protocol": "i2t", "label": 0, "tie_policy": "strict", "corpus": CORPUS,
                    "scene_id": scene.scene_id, "relation": rel, "negative_relation": neg_rel,
                })
    if not rows:
        raise ValueError("no VL-CheckList-style items: no scene has two objects")
    return make_items(rows)


def checklist_set(
    scenes: Iterable[Scene], images: pd.DataFrame, cfg: WorldConfig, seed: int, *,
    strategy: str = "inverse", detail: str = SHAPE,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`checklist_items` and the rows of the world's image table (``image_id, path``, ...)
    they use; a scene without an image row is an error naming it."""
    items = checklist_items(scenes, cfg, seed, strategy=strategy, detail=detail)
    used = sorted(set(items["scene_id"]))
    absent = sorted(set(used) - set(images["image_id"]))
    if absent:
        raise ValueError(f"world image table lacks scene(s) {absent[:5]}"
                         f"{' and more' if len(absent) > 5 else ''}")
    table = images[images["image_id"].isin(used)]
    return items, table.sort_values("image_id", ignore_index=True)
