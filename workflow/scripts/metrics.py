"""Metrics of one model on one benchmark: JSON record and a per-subset CSV."""

import pandas as pd

from vlcomp.io import write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.benchmarks import compute_metrics
from vlcomp.report.tables import subsets_table, write_csv

with job_log(snakemake.log[0]) as log:
    result = compute_metrics(
        snakemake.params.kind,
        pd.read_parquet(snakemake.input.benchmark),
        pd.read_parquet(snakemake.input.scores),
        benchmark=snakemake.wildcards.benchmark,
        **snakemake.params.options,
    )
    result["model"] = snakemake.wildcards.model
    write_json(result, snakemake.output.json)
    write_csv(subsets_table(result), snakemake.output.csv)
    log.info("overall: %s", result["overall"])
