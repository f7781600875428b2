"""A retrieval benchmark's ITM re-ranking (`vlcomp.metrics.rerank`) as files: the candidates
from the embeddings (rule rerank_candidates), the shards of scored pairs
(`vlcomp.score.rerank_shards`, rule rerank_shard) joined (rule rerank_gather), and the hits
and metrics read back (rules retrieval_metrics, uncertainty_retrieval). No model here: the
metrics jobs run without torch.

The joined file holds each query's candidates and their re-ranked scores, both directions:
``i2t`` / ``i2t_scores`` (images × k_test), ``t2i`` / ``t2i_scores`` (texts × k_test), with
``k_test``, the gallery's ``image_ids`` and ``query_ids``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.rerank import Candidates, candidate_pairs, candidate_scores


def read_candidates(path: str) -> Candidates:
    """The candidates of a ``candidates.npz`` or re-ranked ``.npz`` file."""
    with np.load(path) as f:
        return Candidates(f["i2t"], f["t2i"])


def join_rerank_shards(paths: Sequence[str], candidates: Candidates) -> np.ndarray:
    """The values of every candidate pair (`candidate_pairs` order) from the shard files;
    ValueError naming the shard that scores a pair twice or a pair no shard scored."""
    pairs = candidate_pairs(candidates)
    n_txt = candidates.t2i.shape[0]
    keys = pairs[:, 0] * n_txt + pairs[:, 1]
    values = np.full(len(pairs), np.nan)
    seen = np.zeros(len(pairs), dtype=bool)
    for path in paths:
        with np.load(path) as shard:
            mine = shard["pairs"][:, 0] * n_txt + shard["pairs"][:, 1]
            pos = np.clip(np.searchsorted(keys, mine), 0, len(keys) - 1)
            if len(mine) and (keys[pos] != mine).any():
                raise ValueError(f"{path}: scores pairs that are no candidates")
            if seen[pos].any():
                raise ValueError(f"{path}: pairs scored by an earlier shard too")
            values[pos], seen[pos] = shard["values"], True
    if not seen.all():
        image, text = pairs[np.flatnonzero(~seen)[0]]
        raise ValueError(f"{(~seen).sum()} candidate pairs, e.g. (image {image}, text {text}), "
                         f"are in none of {len(paths)} shards")
    return values


def reranked_arrays(candidates: Candidates, values: np.ndarray, k_test: int,
                    ids: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
    """The re-ranked file's arrays (module docstring)."""
    i2t_scores, t2i_scores = candidate_scores(candidates, candidate_pairs(candidates), values)
    return {"i2t": candidates.i2t, "i2t_scores": i2t_scores, "t2i": candidates.t2i,
            "t2i_scores": t2i_scores, "k_test": np.int64(k_test),
            "image_ids": np.array(list(ids["image_ids"])),
            "query_ids": np.array(list(ids["query_ids"]))}


def reranked_hits_file(path: str, gallery: pd.DataFrame, queries: pd.DataFrame,
                       links: np.ndarray) -> tuple[dict[str, np.ndarray], int]:
    """Per-item hits of a re-ranked file and its ``k_test``; ValueError naming the file when
    its gallery or queries are not these."""
    from vlcomp.metrics.rerank import reranked_hits

    with np.load(path) as f:
        if ([str(i) for i in f["image_ids"].tolist()] != [str(i) for i in gallery.image_id]
                or [str(q) for q in f["query_ids"].tolist()]
                != [str(q) for q in queries.query_id]):
            raise ValueError(f"{path}: re-ranked for another gallery or other queries")
        candidates = Candidates(f["i2t"], f["t2i"])
        hits = reranked_hits(candidates, f["i2t_scores"], f["t2i_scores"], links)
        return hits, int(f["k_test"])


def reranked_metrics(path: str, gallery: pd.DataFrame, queries: pd.DataFrame,
                     links: np.ndarray) -> dict[str, Any]:
    """R@K (percent) of a re-ranked file, with its ``ranking`` label and ``k_test``."""
    from vlcomp.metrics.retrieval import hits_summary

    hits, k_test = reranked_hits_file(path, gallery, queries, links)
    return {**hits_summary(hits, len(gallery), len(queries)), "k_test": k_test,
            "ranking": ranking_label(k_test)}


EMBEDDING_RANKING = "embedding cosine"  # the ranking of a model that is not re-ranked


def ranking_label(k_test: int) -> str:
    """How a re-ranked retrieval ranked, as tables and records say it."""
    return f"ITM re-ranked (top {k_test} by ITC)"
