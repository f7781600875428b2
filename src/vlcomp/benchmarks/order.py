"""ARO Order items (COCO-Order style): each caption against its 4 word-order perturbations."""

from __future__ import annotations

import pandas as pd

from vlcomp.items import make_items


def order_items(perturbed: dict[int, pd.DataFrame], captions: pd.DataFrame) -> pd.DataFrame:
    """Items from long-format perturbation tables per seed.

    ``perturbed[seed]`` has columns caption_id, perturbation, original, perturbed (as written by
    ``vlcomp.text.order.perturb_captions``); the original is option 0 and ties count as
    correct, as in ARO's ``argmax == 0`` rule.
    """
    image_of = dict(zip(captions.caption_id, captions.image_id, strict=True))
    rows = []
    for seed in sorted(perturbed):
        df = perturbed[seed]
        for caption_id, group in df.groupby("caption_id", sort=True):
            if caption_id not in image_of:
                raise ValueError(f"perturbation seed {seed}: unknown caption_id {caption_id!r}")
            rows.append({
                "item_id": f"{caption_id}-s{seed}", "subset": f"seed{seed}",
                "image_ids": [image_of[caption_id]],
                "texts": [group.original.iloc[0], *group.perturbed.tolist()],
                "protocol": "i2t", "label": 0, "tie_policy": "lenient", "seed": seed,
                "caption_id": caption_id,
                "n_changed": int(group.changed.sum()),
            })
    return make_items(rows)
