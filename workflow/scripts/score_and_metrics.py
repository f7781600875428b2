"""Score matrices S[image, text] for every item of a choice benchmark, then its metrics (JSON
record and per-subset CSV). One job per model and benchmark: both steps are cheap, so the
job's start-up dominates when they run apart."""

import pandas as pd

from vlcomp.io import write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.benchmarks import compute_metrics
from vlcomp.report.tables import subsets_table, write_csv
from vlcomp.score.embeddings import load_stacked_embeddings
from vlcomp.score.matrices import score_items

with job_log(snakemake.log[0]) as log:
    image_emb, image_rows = load_stacked_embeddings(snakemake.input.images)
    text_emb, text_rows = load_stacked_embeddings([snakemake.input.texts])
    items = pd.read_parquet(snakemake.input.benchmark)
    scores = score_items(items, image_emb, image_rows, text_emb, text_rows)
    write_parquet(scores, snakemake.output.scores)
    log.info("%d items scored", len(scores))
    result = compute_metrics(snakemake.params.kind, items, scores,
                             benchmark=snakemake.wildcards.benchmark, **snakemake.params.options)
    result["model"] = snakemake.wildcards.model
    write_json(result, snakemake.output.json)
    write_csv(subsets_table(result), snakemake.output.csv)
    log.info("overall: %s", result["overall"])
