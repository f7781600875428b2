"""Metrics of a choice benchmark from a pair scorer's score matrices (written by its
score_pairs / score_generative job): the JSON record and per-subset CSV that
score_and_metrics.py writes for embedding models."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.metric_records import write_benchmark_outputs

with job_log(snakemake.log[0]) as log:
    items = read_parquet(snakemake.input.benchmark)
    scores = read_parquet(snakemake.input.scores)
    if list(scores.item_id) != list(items.item_id):
        raise ValueError(f"{snakemake.input.scores}: items differ from "
                         f"{snakemake.input.benchmark}; rerun its scoring job")
    out, wc = snakemake.output, snakemake.wildcards
    result = write_benchmark_outputs(items, scores, snakemake.params.kind, wc.benchmark,
                                     wc.model, snakemake.params.options, None, out.json,
                                     out.csv)
    log.info("%d items; overall: %s", len(scores), result["overall"])
