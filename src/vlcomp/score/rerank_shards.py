"""A re-ranked retrieval's candidate pairs (`vlcomp.score.rerank_files`) scored by a model's
pair score in shards (rule rerank_shard): every pair as one `PairPlan`, each shard a block of
its whole picture chunks, so every picture sees the same batches in any sharding and the
gathered file does not depend on the shard count."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vlcomp.metrics.rerank import Candidates, candidate_pairs
from vlcomp.score.pair_plan import PairPlan, score_plan, shard_plan
from vlcomp.score.pairs import ImageRef


def rerank_plan(refs: Sequence[ImageRef], texts: Sequence[str], pairs: np.ndarray) -> PairPlan:
    """Every candidate pair (gallery row, query position) as a `PairPlan`: per picture the
    distinct query texts of its pairs."""
    plan = PairPlan()
    starts = np.searchsorted(pairs[:, 0], np.arange(len(refs) + 1))
    for row, ref in enumerate(refs):
        mine = pairs[starts[row]:starts[row + 1], 1]
        if len(mine):
            plan.want(ref, [texts[t] for t in mine])
    return plan


def score_rerank_shard(scorer: Any, refs: Sequence[ImageRef], texts: Sequence[str],
                       candidates: Candidates, shard: str, *, kind: str, batch_size: int = 64,
                       image_batch: int = 32) -> dict[str, np.ndarray]:
    """One shard's candidate pairs scored by the pair score ``kind``: ``pairs`` (gallery
    row, query position; sorted), ``values``, and its block of chunks."""
    pairs = candidate_pairs(candidates)
    plan = rerank_plan(refs, texts, pairs)
    part, pictures, block, total = shard_plan(plan, shard, image_batch)
    scored = score_plan(scorer, part, batch_size=batch_size, image_batch=image_batch,
                        options={"kind": kind}, desc=f"re-rank {shard}")
    mine = set(pictures)
    rows = np.array([r for r, ref in enumerate(refs) if plan.picture(ref) in mine],
                    dtype=np.int64)
    kept = pairs[np.isin(pairs[:, 0], rows)]
    values = np.empty(len(kept), dtype=np.float64)
    starts = np.searchsorted(kept[:, 0], rows)
    ends = np.searchsorted(kept[:, 0], rows, side="right")
    for row, lo, hi in zip(rows, starts, ends, strict=True):
        values[lo:hi] = scored.scores(part.picture(refs[row]),
                                      [texts[t] for t in kept[lo:hi, 1]])
    return {"pairs": kept, "values": values, "chunks_start": np.int64(block.start),
            "chunks_stop": np.int64(block.stop), "chunks_total": np.int64(total)}


def score_condition_block(scorer: Any, keys: Sequence[str],
                          inputs: Callable[[str], tuple[Candidates, Sequence[ImageRef],
                                                        Sequence[str]]],
                          *, kind: str, batch_size: int = 64, image_batch: int = 32,
                          say: Callable[[str], None] = print) -> dict[str, np.ndarray]:
    """A robustness re-ranking shard (`vlcomp.score.robustness_rerank`): each condition of
    ``keys`` (``inputs(key)``: its candidates, the pictures its rows show and its query
    texts) scored whole, as a one-shard `score_rerank_shard`: ``{key}.values`` in
    `candidate_pairs` order, and ``keys``."""
    out: dict[str, np.ndarray] = {"keys": np.array(list(keys), dtype=str)}
    for key in keys:
        candidates, refs, texts = inputs(key)
        arrays = score_rerank_shard(scorer, refs, texts, candidates, "0-of-1", kind=kind,
                                    batch_size=batch_size, image_batch=image_batch)
        if not np.array_equal(arrays["pairs"], candidate_pairs(candidates)):
            raise RuntimeError(f"condition {key}: the scored pairs are not its candidates")
        out[f"{key}.values"] = arrays["values"]
        say(f"condition {key}: {len(arrays['values'])} pairs ({kind})")
    return out
