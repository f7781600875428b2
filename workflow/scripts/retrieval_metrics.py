"""Recall@K of one model on one retrieval benchmark (whole gallery, both directions)."""

import numpy as np
import pandas as pd

from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.fold_retrieval import fold_retrieval_metrics, fold_texts
from vlcomp.metrics.retrieval import retrieval_metrics
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import ids_path_for, load_embeddings

with job_log(snakemake.log[0]) as log:
    gallery = read_parquet(snakemake.input.gallery)
    queries = read_parquet(snakemake.input.queries)
    image_emb, image_rows = load_embeddings(snakemake.input.images,
                                            ids_path_for(snakemake.input.images))
    text_emb, text_rows = load_embeddings(snakemake.input.texts,
                                          ids_path_for(snakemake.input.texts))
    missing = [i for i in gallery.image_id if i not in image_rows]
    if missing:
        raise ValueError(f"{snakemake.input.images}: no embedding for {missing[:3]}")
    images = image_emb[[image_rows[i] for i in gallery.image_id]]
    texts = text_emb[[text_rows[q] for q in queries.query_id]]
    position = {image_id: k for k, image_id in enumerate(gallery.image_id)}
    result = retrieval_metrics(images, texts, [position[i] for i in queries.image_id])
    result = {"benchmark": snakemake.wildcards.benchmark, "model": snakemake.wildcards.model,
              **result}
    if snakemake.params.folds:  # COCO-1K: each image's first five captions, fold by fold
        text_image = np.asarray([position[i] for i in queries.image_id])
        kept = fold_texts(text_image)
        result["folds"] = fold_retrieval_metrics(
            images @ texts[kept].T, text_image[kept], folds=snakemake.params.folds)
        log.info("%d folds (%d of %d texts): %s", snakemake.params.folds, len(kept), len(texts),
                 result["folds"]["overall"])
    write_json(result, snakemake.output.json)
    write_csv(pd.DataFrame([result["overall"]]), snakemake.output.csv)
    log.info("overall: %s", result["overall"])
