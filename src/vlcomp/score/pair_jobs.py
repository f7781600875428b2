"""The parts of a pair-scoring model's single job (`workflow/scripts/score_pair_model.py`):
retrieval galleries for log P(t|i) (VisualGPTScore Table 4), text-prior tables
(VisualGPTScore Eq. 6) per benchmark from priors computed once over the union of texts,
where each benchmark's outputs come from in a `PlanScores`, and the cosine score matrices of
the choice benchmarks a model that also embeds does not score pair by pair (FLAVA outside
ARO's benchmarks: ``pair_benchmarks``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from vlcomp.benchmarks.retrieval import finest_caption_queries, gallery_queries
from vlcomp.metrics.debias import log_mean_exp
from vlcomp.score.embeddings import load_stacked_embeddings
from vlcomp.score.matrices import score_items
from vlcomp.score.pairs import ImageRef, image_index


class Gallery(NamedTuple):
    """A retrieval gallery: its images, query texts and each text's image row."""

    image_ids: list[str]
    refs: list[ImageRef]
    texts: list[str]
    links: np.ndarray


def gallery(image_ids: Iterable, queries: pd.DataFrame, images: pd.DataFrame,
            cap: int | None) -> Gallery:
    """The first ``cap`` gallery images (all when None) and the queries of those images."""
    ids = [str(i) for i in image_ids][:cap]
    rank = {i: k for k, i in enumerate(ids)}
    mine = queries[queries.image_id.astype(str).isin(rank)]
    index = {str(k): v for k, v in image_index([images]).items()}
    missing = [i for i in ids if i not in index]
    if missing:
        raise ValueError(f"gallery images without a path in the image set: {missing[:3]}")
    links = np.array([rank[str(i)] for i in mine.image_id], dtype=np.int64)
    return Gallery(ids, [index[i] for i in ids], [str(t) for t in mine.text], links)


def retrieval_galleries(gallery_ids: Iterable, queries: pd.DataFrame, test_images: pd.DataFrame,
                        val_images: pd.DataFrame, captions: pd.DataFrame, query_mode: str,
                        cap: int | None) -> dict[str, Gallery]:
    """The test gallery of a retrieval benchmark and a validation gallery built the same way
    (``query_mode`` ``all``: every caption, else the finest caption per image), for α*."""
    val_ids = sorted(val_images.image_id.astype(str))[:cap]
    make = gallery_queries if query_mode == "all" else finest_caption_queries
    val_queries = make(captions[captions.split == "val"], val_ids)
    return {"test": gallery(gallery_ids, queries, test_images, cap),
            "val": gallery(val_ids, val_queries, val_images, cap)}


def read_galleries(gallery: str, queries: str, test_images: str, val_images: str,
                   captions: str, query_mode: str, cap: int | None) -> dict[str, Gallery]:
    """`retrieval_galleries` from a retrieval benchmark's files (gallery ids, queries, test
    and validation image sets, captions)."""
    from vlcomp.io import read_parquet

    return retrieval_galleries(read_parquet(gallery).image_id, read_parquet(queries),
                               read_parquet(test_images), read_parquet(val_images),
                               read_parquet(captions), query_mode, cap)


def benchmark_texts(items: pd.DataFrame) -> list[str]:
    """The distinct option texts of choice items, sorted."""
    return sorted({t for texts in items.texts for t in texts})


def prior_table(texts: Sequence[str], union: Sequence[str], null_per_image: np.ndarray,
                train_per_image: np.ndarray | None = None,
                llm: Mapping[str, np.ndarray] | None = None) -> pd.DataFrame:
    """One benchmark's prior table from priors over the ``union`` of all benchmarks' texts:
    ``text``, ``log_prior_null`` (log-mean-exp over null images), ``log_p_text_given_null``
    (per null image), ``log_prior_train`` when given, and ``log_prior_llm_{name}`` per
    text-only LM (``llm``: name -> log P_LLM(t)). Each array's rows follow ``union``
    (``train_per_image``: texts × training images)."""
    row = {t: k for k, t in enumerate(union)}
    missing = [t for t in texts if t not in row]
    if missing:
        raise KeyError(f"text {missing[0]!r} has no prior")
    rows = np.array([row[t] for t in texts], dtype=np.intp)
    null = np.asarray(null_per_image, np.float64)[rows]
    table = pd.DataFrame({"text": list(texts), "log_prior_null": log_mean_exp(null, axis=1),
                          "log_p_text_given_null": [list(r) for r in null]})
    if train_per_image is not None:
        table["log_prior_train"] = log_mean_exp(np.asarray(train_per_image)[rows], axis=1)
    for name, scores in (llm or {}).items():
        table[f"log_prior_llm_{name}"] = np.asarray(scores, np.float64)[rows]
    return table


def llm_prior_scores(tables: Mapping[str, pd.DataFrame], union: Sequence[str],
                     paths: Mapping[str, str] | None = None) -> dict[str, np.ndarray]:
    """Per text-only LM (name -> its ``text, log_prior`` table, rule llm_prior), log P_LLM(t)
    of every text of ``union`` in order; a text the table lacks is an error naming the LM's
    file (``paths``) and the text."""
    out = {}
    for name, table in tables.items():
        found = dict(zip(table.text, table.log_prior, strict=True))
        missing = [t for t in union if t not in found]
        if missing:
            where = (paths or {}).get(name, name)
            raise KeyError(f"{where}: no log P_LLM(t) for text {missing[0]!r} "
                           f"({len(missing)} texts missing)")
        out[name] = np.array([found[t] for t in union], dtype=np.float64)
    return out


def cosine_item_scores(items: pd.DataFrame, image_npys: Sequence[str],
                       text_npy: str) -> pd.DataFrame:
    """Choice items scored by the cosine of saved embeddings (the benchmark's image sets and
    its texts), as score_and_metrics scores embedding models."""
    image_emb, image_rows = load_stacked_embeddings(list(image_npys))
    text_emb, text_rows = load_stacked_embeddings([text_npy])
    return score_items(items, image_emb, image_rows, text_emb, text_rows)
