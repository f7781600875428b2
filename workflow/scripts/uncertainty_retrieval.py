"""Bootstrap CIs of every embedding model's retrieval R@K on one gallery (resampling its
images, each with its texts), paired tests between models, and the seed spread."""

from dataclasses import replace

import numpy as np

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.fold_retrieval import fold_retrieval_hits, fold_texts
from vlcomp.metrics.retrieval import retrieval_hits
from vlcomp.metrics.uncertainty import bootstrap_outcomes, retrieval_outcomes, seed_spread
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import ids_path_for, load_embeddings

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    gallery = read_parquet(inp.gallery)
    queries = read_parquet(inp.queries)
    position = {image_id: k for k, image_id in enumerate(gallery.image_id)}
    links = np.asarray([position[i] for i in queries.image_id])
    outcomes = {}
    for model, images_npy, texts_npy in zip(p.models, inp.images, inp.texts, strict=True):
        image_emb, image_rows = load_embeddings(images_npy, ids_path_for(images_npy))
        text_emb, text_rows = load_embeddings(texts_npy, ids_path_for(texts_npy))
        missing = [i for i in gallery.image_id if i not in image_rows]
        if missing:
            raise ValueError(f"{images_npy}: no embedding for {missing[:3]}")
        images = image_emb[[image_rows[i] for i in gallery.image_id]]
        texts = text_emb[[text_rows[q] for q in queries.query_id]]
        outcomes[model] = retrieval_outcomes(retrieval_hits(images, texts, links), links)
        if p.folds:  # COCO-1K (BISON's table): the same images, hits inside their folds
            kept = fold_texts(links)
            folded = fold_retrieval_hits(images @ texts[kept].T, links[kept], folds=p.folds)
            outcomes[model] += [replace(o, metric=f"folds {o.metric}")
                                for o in retrieval_outcomes(folded, links[kept])]
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
