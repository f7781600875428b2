"""Bootstrap CIs of every embedding model's retrieval R@K on one gallery (resampling its
images, each with its texts), paired tests between models, and the seed spread."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.uncertainty import bootstrap_outcomes, seed_spread
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import gallery_links
from vlcomp.score.fold_alignment import fold_alignment
from vlcomp.score.gallery_outcomes import gallery_outcomes

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    gallery = read_parquet(inp.gallery)
    queries = read_parquet(inp.queries)
    reranked = dict(zip(p.reranked_models, inp.reranked, strict=True))
    alignment = None
    if p.folds:  # the gallery matched onto the folds' reference order, once for all models
        alignment = fold_alignment(inp, p.fold_file, gallery, queries,
                                   gallery_links(gallery, queries))
    outcomes = gallery_outcomes(gallery, queries, p.models, inp.images, inp.texts, reranked,
                                folds=p.folds, alignment=alignment)
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
