"""SugarCrepe-style negative captions for world training captions (the TROHN-Text data).

For every caption and each of the seven subsets, one scene-graph edit is tried (seeded per
caption and subset); the negative is kept when the oracle finds it false of the image. The
output has the layout of the LLM route (`vlcomp.text.llm_negatives`): one row per negative,
columns ``caption_id, image_id, text, subset, negative``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from vlcomp.seeding import stable_rng
from vlcomp.world.config import WorldConfig
from vlcomp.world.edits import SUBSETS, verified_negative
from vlcomp.world.grammar import CaptionSpec
from vlcomp.world.oracle import Oracle
from vlcomp.world.scene import Scene

COLUMNS = ["caption_id", "image_id", "text", "subset", "negative"]


def world_negatives(
    scenes: Mapping[str, Scene],
    captions: pd.DataFrame,
    cfg: WorldConfig,
    seed: int,
    subsets: Sequence[str] = SUBSETS,
) -> pd.DataFrame:
    """Negatives of ``captions`` (caption_id, image_id, text, spec) by verified scene edits."""
    unknown = sorted(set(subsets) - set(SUBSETS))
    if unknown:
        raise ValueError(f"unknown subsets {unknown}; known: {', '.join(SUBSETS)}")
    oracle, rows = Oracle(cfg), []
    table = captions.sort_values("caption_id")
    for cap in tqdm(table.itertuples(index=False), total=len(table), desc="world negatives",
                    file=sys.stderr, mininterval=5):
        scene = scenes.get(cap.image_id)
        if scene is None:
            raise ValueError(f"caption {cap.caption_id}: no scene {cap.image_id!r}")
        spec = CaptionSpec.from_json(cap.spec)
        for subset in subsets:
            rng = stable_rng("world_negatives", seed, cap.caption_id, subset)
            found = verified_negative(subset, cap.text, spec, scene, rng, cfg, oracle)
            if found is not None:
                rows.append((cap.caption_id, cap.image_id, cap.text, subset, found[0]))
    return pd.DataFrame(rows, columns=COLUMNS).astype("string")
