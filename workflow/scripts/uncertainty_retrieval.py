"""Bootstrap CIs of every embedding model's retrieval R@K on one gallery (resampling its
images, each with its texts), paired tests between models, and the seed spread."""

from dataclasses import replace

from vlcomp.benchmarks.coco_folds import fold_inputs
from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.fold_retrieval import fold_retrieval_hits
from vlcomp.metrics.retrieval import retrieval_hits
from vlcomp.metrics.uncertainty import bootstrap_outcomes, retrieval_outcomes, seed_spread
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import gallery_embeddings, gallery_links
from vlcomp.score.fold_alignment import fold_alignment
from vlcomp.score.rerank_files import reranked_hits_file

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    gallery = read_parquet(inp.gallery)
    queries = read_parquet(inp.queries)
    reranked = dict(zip(p.reranked_models, inp.reranked, strict=True))
    alignment = None
    if p.folds:  # the gallery matched onto the folds' reference order, once for all models
        alignment = fold_alignment(inp, p.fold_file, gallery, queries,
                                   gallery_links(gallery, queries))
    outcomes = {}
    for model, images_npy, texts_npy in zip(p.models, inp.images, inp.texts, strict=True):
        images, texts, links = gallery_embeddings(gallery, queries, images_npy, texts_npy)
        if model in reranked:  # ITM re-ranked, as its retrieval_metrics record
            hits, _ = reranked_hits_file(reranked[model], gallery, queries, links)
        else:
            hits = retrieval_hits(images, texts, links)
        outcomes[model] = retrieval_outcomes(hits, links)
        if p.folds:  # COCO-1K (BISON's table): the same images, hits inside their folds
            scores, fold_links = fold_inputs(images, texts, links, alignment)
            folded = fold_retrieval_hits(scores, fold_links, folds=p.folds)
            outcomes[model] += [replace(o, metric=f"folds {o.metric}")
                                for o in retrieval_outcomes(folded, fold_links)]
    boot = bootstrap_outcomes(outcomes, len(gallery), benchmark=snakemake.wildcards.benchmark,
                              n_resamples=p.resamples, seed=p.seed, confidence=p.confidence,
                              method=p.method)
    intervals = boot.table()
    write_csv(intervals, out.intervals, index=False)
    write_csv(boot.comparisons(), out.comparisons, index=False)
    write_csv(seed_spread(intervals, p.groups, boot.group_table(p.groups)), out.seeds,
              index=False)
    log.info("%d images, %d texts, %d models, %d resamples (seed %d)", len(gallery),
             len(queries), len(outcomes), p.resamples, p.seed)
