"""Recall@K of one model on one retrieval benchmark (whole gallery, both directions): by the
embedding cosine, or, for a cross-encoder re-ranked by ITM (config retrieval), by its
re-ranked scores, the cosine figures kept beside them (``overall_itc``)."""

import pandas as pd

from vlcomp.benchmarks.coco_folds import fold_inputs, fold_order_report
from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.fold_retrieval import fold_retrieval_metrics
from vlcomp.metrics.retrieval import retrieval_metrics
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import gallery_embeddings
from vlcomp.score.fold_alignment import fold_alignment
from vlcomp.score.rerank_files import EMBEDDING_RANKING, reranked_metrics

with job_log(snakemake.log[0]) as log:
    inp = snakemake.input
    gallery = read_parquet(inp.gallery)
    queries = read_parquet(inp.queries)
    images, texts, links = gallery_embeddings(gallery, queries, inp.images, inp.texts)
    result = retrieval_metrics(images, texts, links)
    result = {"benchmark": snakemake.wildcards.benchmark, "model": snakemake.wildcards.model,
              "ranking": EMBEDDING_RANKING, **result}
    if inp.reranked:  # BLIP / ARO: the top k_test by ITC re-scored by ITM + ITC
        reranked = reranked_metrics(inp.reranked[0], gallery, queries, links)
        log.info("%s: %s", EMBEDDING_RANKING, result["overall"])
        result = {**result, "ranking": reranked["ranking"], "k_test": reranked["k_test"],
                  "overall_itc": result["overall"], "overall": reranked["overall"]}
    if snakemake.params.folds:  # COCO-1K: each image's first five captions, fold by fold
        alignment = fold_alignment(inp, snakemake.params.fold_file, gallery, queries, links)
        scores, fold_links = fold_inputs(images, texts, links, alignment)
        result["folds"] = fold_retrieval_metrics(scores, fold_links,
                                                 folds=snakemake.params.folds)
        result["folds"]["ranking"] = EMBEDDING_RANKING
        result["folds"]["order"] = fold_order_report(alignment)
        log.info("%d folds (%d of %d texts, %s): %s", snakemake.params.folds, len(fold_links),
                 len(texts), result["folds"]["order"], result["folds"]["overall"])
    write_json(result, snakemake.output.json)
    write_csv(pd.DataFrame([result["overall"]]), snakemake.output.csv)
    log.info("%s: %s", result["ranking"], result["overall"])
