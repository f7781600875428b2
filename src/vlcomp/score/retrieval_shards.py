"""A generative model's retrieval galleries (log P(t|i) of every gallery image with every
query, VisualGPTScore Table 4) in shards: the largest work of the paper configuration (BLIP
on COCO's test gallery is 5,000 × 25,010 text passes).

The galleries' pictures are grouped into the chunks `score_plan` scores together
(`picture_chunks`); each shard takes a block of whole chunks, and its texts keep the indices
of the whole plan, so every picture sees the same batches in any sharding: the gather's
matrices (`vlcomp.score.retrieval_files`) do not depend on the shard count.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from vlcomp.score.pair_jobs import Gallery
from vlcomp.score.pair_plan import PairPlan, score_plan, shard_plan
from vlcomp.score.retrieval_files import SPLITS


def gallery_plan(galleries: Mapping[str, Gallery]) -> PairPlan:
    """Every (gallery image, query) pair of both splits."""
    plan = PairPlan()
    for split in SPLITS:
        for ref in galleries[split].refs:
            plan.want(ref, galleries[split].texts)
    return plan


def score_retrieval_shard(scorer: Any, galleries: Mapping[str, Gallery], shard: str, *,
                          batch_size: int = 64, image_batch: int = 32,
                          options: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """The rows of both galleries' score matrices whose images fall in one shard:
    ``{split}_rows`` (row indices) and ``{split}`` (those rows, all queries), with the block
    of chunks (``chunks_start``, ``chunks_stop``, ``chunks_total``)."""
    plan = gallery_plan(galleries)
    part, pictures, block, total = shard_plan(plan, shard, image_batch)
    pictures = set(pictures)
    scored = score_plan(scorer, part, batch_size=batch_size, image_batch=image_batch,
                        options=options, desc=f"retrieval {shard}")
    out = {"chunks_start": np.int64(block.start), "chunks_stop": np.int64(block.stop),
           "chunks_total": np.int64(total)}
    for split in SPLITS:
        g = galleries[split]
        rows = [k for k, ref in enumerate(g.refs) if plan.picture(ref) in pictures]
        out[f"{split}_rows"] = np.array(rows, dtype=np.int64)
        out[split] = (scored.matrix([g.refs[k] for k in rows], g.texts) if rows
                      else np.zeros((0, len(g.texts))))
    return out
