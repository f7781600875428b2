"""BISON-style items in the world: one caption, two similar images, pick the one it describes.

BISON (Hu et al. 2019) was built in three stages: (1) pair each COCO image with semantically
similar ones (nearest neighbours of averaged word embeddings of the images' captions), (2)
annotators pick a caption of the query image that the other image does not fit, (3) other
annotators verify it. Here (1) is the same computation on the world's captions, and the oracle
does (2) and (3): the chosen caption is true of the query scene (by construction) and false of
the partner scene.

Items use the choice schema with protocol ``t2i``: ``texts = [caption]``, ``image_ids`` the two
candidates in a seeded random order, ``label`` the true image's position (so a model that
always picks the first candidate scores about 50 %). Extra columns: ``caption_id``,
``true_image_id``, ``neighbour_rank`` (0 = the nearest neighbour) and ``template``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from vlcomp.image.neighbours import nearest_neighbours
from vlcomp.items import make_items
from vlcomp.seeding import stable_rng
from vlcomp.world.grammar import CaptionSpec
from vlcomp.world.oracle import Oracle
from vlcomp.world.scene import Scene


def similar_images(image_ids: Sequence[str], vectors: np.ndarray, k: int) -> dict[str, list[str]]:
    """Each image's ``k`` most cosine-similar other images (nearest first; BISON stage 1)."""
    idx = nearest_neighbours(vectors, k, backend="numpy")
    ids = list(image_ids)
    return {ids[i]: [ids[j] for j in row] for i, row in enumerate(idx)}


def bison_items(
    scenes: Mapping[str, Scene], captions: pd.DataFrame, neighbours: Mapping[str, list[str]],
    oracle: Oracle, seed: int,
) -> pd.DataFrame:
    """One item per query image: its first neighbour (nearest first) for which one of its
    captions is false, with that caption (captions tried in a seeded random order).

    Images whose every neighbour fits all their captions get no item (counted by the caller).
    """
    by_image = {str(k): g for k, g in captions.groupby("image_id", sort=True)}
    rows = []
    for image_id in sorted(neighbours):
        caps = by_image.get(image_id)
        if caps is None:
            raise ValueError(f"image {image_id!r} has no captions")
        rng = stable_rng("bison", seed, image_id)
        order = [int(k) for k in rng.permutation(len(caps))]
        for rank, other in enumerate(neighbours[image_id]):
            if other not in scenes:
                raise ValueError(f"neighbour {other!r} of {image_id!r} has no scene")
            found = next(
                (caps.iloc[k] for k in order
                 if not oracle.is_true(CaptionSpec.from_json(caps.iloc[k].spec), scenes[other])),
                None,
            )
            if found is None:
                continue
            flip = bool(rng.random() < 0.5)
            rows.append({
                "item_id": f"bison-{image_id}", "subset": "bison",
                "image_ids": [other, image_id] if flip else [image_id, other],
                "texts": [str(found.text)], "protocol": "t2i", "label": int(flip),
                "tie_policy": "strict", "caption_id": str(found.caption_id),
                "true_image_id": image_id, "neighbour_rank": rank,
                "template": str(found.template),
            })
            break
    return make_items(rows)


ORIGINAL = "original"


def altered_items(items: pd.DataFrame, altered: pd.DataFrame) -> pd.DataFrame:
    """BISON items plus, for each query alteration and seed, a copy whose caption is altered
    (``altered``: rows ``caption_id`` = item id, ``perturbation``, ``seed``, ``perturbed``,
    ``changed``). Subset ``original`` holds the items as built; every copy names its
    ``base_item_id`` so a metric can tell which predictions the alteration flipped."""
    base = items.assign(subset=ORIGINAL, base_item_id=items.item_id, seed=-1, changed=False)
    by_id = items.set_index("item_id")
    missing = sorted(set(altered.caption_id) - set(by_id.index))
    if missing:
        raise ValueError(f"altered captions for unknown BISON items, e.g. {missing[:3]}")
    rows = []
    for r in altered.itertuples():
        item = by_id.loc[r.caption_id]
        rows.append({**item.to_dict(), "item_id": f"{r.caption_id}-{r.perturbation}-s{r.seed}",
                     "subset": r.perturbation, "texts": [str(r.perturbed)],
                     "base_item_id": r.caption_id, "seed": int(r.seed),
                     "changed": bool(r.changed)})
    return make_items([*base.to_dict("records"), *rows])
