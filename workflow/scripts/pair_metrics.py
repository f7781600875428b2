"""Metrics of each choice benchmark from a pair scorer's score matrices (written by its
score_pairs / score_generative job): the JSON record and per-subset CSV that
score_and_metrics.py writes for embedding models. One job per model."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.metric_records import write_benchmark_outputs

with job_log(snakemake.log[0]) as log:
    out, params, model = snakemake.output, snakemake.params, snakemake.wildcards.model
    for i, benchmark in enumerate(params.benchmarks):
        items = read_parquet(snakemake.input.benchmarks[i])
        scores = read_parquet(snakemake.input.scores[i])
        if list(scores.item_id) != list(items.item_id):
            raise ValueError(f"{snakemake.input.scores[i]}: items differ from "
                             f"{snakemake.input.benchmarks[i]}; rerun its scoring job")
        result = write_benchmark_outputs(items, scores, params.kinds[i], benchmark, model,
                                         params.options[i], None, out.json[i], out.csv[i])
        log.info("%s: %d items; overall: %s", benchmark, len(scores), result["overall"])
