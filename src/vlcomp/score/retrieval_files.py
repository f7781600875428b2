"""A retrieval benchmark's log P(t|i) score file (``.npz``): its one layout
(`retrieval_arrays`), written by the unsharded job and by the gather of its shards
(`join_retrieval_shards`; the shards come from `vlcomp.score.retrieval_shards`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from vlcomp.score.pair_jobs import Gallery

SPLITS = ("test", "val")


def join_retrieval_shards(paths: Sequence[str | Path],
                          galleries: Mapping[str, Gallery]) -> dict[str, np.ndarray]:
    """Both galleries' full score matrices from their shards; raises naming the shard file
    when a row comes twice, or never."""
    full = {s: np.full((len(galleries[s].refs), len(galleries[s].texts)), np.nan)
            for s in SPLITS}
    seen = {s: np.zeros(len(galleries[s].refs), dtype=bool) for s in SPLITS}
    for path in paths:
        with np.load(path) as shard:
            for split in SPLITS:
                rows = shard[f"{split}_rows"]
                if seen[split][rows].any():
                    raise ValueError(f"{path}: {split} rows scored by an earlier shard too")
                if shard[split].shape != (len(rows), len(galleries[split].texts)):
                    raise ValueError(f"{path}: {split} block {shard[split].shape} for "
                                     f"{len(rows)} rows")
                full[split][rows] = shard[split]
                seen[split][rows] = True
    for split in SPLITS:
        if not seen[split].all():
            raise ValueError(f"{split} gallery rows {np.flatnonzero(~seen[split])[:5]} ... "
                             f"are in none of {len(paths)} shards")
    return full


def retrieval_arrays(galleries: Mapping[str, Gallery],
                     matrices: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A retrieval benchmark's ``.npz`` arrays, in their order: per split its score matrix
    (images × queries), each query's image row, the image ids and paths."""
    out = {}
    for split in SPLITS:
        g = galleries[split]
        out[split] = matrices[split]
        out[f"{split}_links"] = g.links
        out[f"{split}_images"] = np.array(g.image_ids)
        out[f"{split}_paths"] = np.array([r.path for r in g.refs])
    return out
