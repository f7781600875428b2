"""Each model's per-image retrieval outcomes on one gallery, as its retrieval metrics count
them: the embeddings' cosine ranking, or the ITM re-ranking where the model has one, and
COCO-1K's folds beside the whole gallery where the benchmark has them. The bootstrap of
`vlcomp.metrics.uncertainty` resamples these (rule uncertainty_retrieval), and BISON's rank
agreement sets them beside its accuracy (rule bison_rank_agreement)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from vlcomp.benchmarks.coco_folds import fold_inputs
from vlcomp.metrics.fold_retrieval import fold_retrieval_hits
from vlcomp.metrics.retrieval import retrieval_hits
from vlcomp.metrics.uncertainty import Outcome, retrieval_outcomes
from vlcomp.score.embeddings import gallery_embeddings
from vlcomp.score.rerank_files import reranked_hits_file


def gallery_outcomes(gallery: pd.DataFrame, queries: pd.DataFrame, models: Sequence[str],
                     images: Sequence[str | Path], texts: Sequence[str | Path],
                     reranked: Mapping[str, str | Path], folds: int | None = None,
                     alignment=None) -> dict[str, list[Outcome]]:
    """model -> its R@K outcomes over the gallery's images (``images`` / ``texts``: each
    model's embedding files, in ``models`` order; ``reranked``: model -> its re-ranked
    scores); with ``folds``, ``folds {metric}`` outcomes too, the hits inside each fold of
    the gallery (aligned to the reference folds by ``alignment``, or in gallery order)."""
    outcomes = {}
    for model, images_npy, texts_npy in zip(models, images, texts, strict=True):
        image_emb, text_emb, links = gallery_embeddings(gallery, queries, images_npy, texts_npy)
        if model in reranked:  # ITM re-ranked, as its retrieval_metrics record
            hits, _ = reranked_hits_file(reranked[model], gallery, queries, links)
        else:
            hits = retrieval_hits(image_emb, text_emb, links)
        outcomes[model] = retrieval_outcomes(hits, links)
        if folds:
            scores, fold_links = fold_inputs(image_emb, text_emb, links, alignment)
            folded = fold_retrieval_hits(scores, fold_links, folds=folds)
            outcomes[model] += [replace(o, metric=f"folds {o.metric}")
                                for o in retrieval_outcomes(folded, fold_links)]
    return outcomes
