"""BiVLC generation tables: Table 1 (counts), the automatic filter (rates with their bootstrap
CIs over items), Table 4 (detectors)."""

import json
from pathlib import Path

from vlcomp.benchmarks.bivlc import category_counts
from vlcomp.benchmarks.bivlc_table1 import with_winoground
from vlcomp.generate.filters import filter_ratios
from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.uncertainty import ratio_intervals
from vlcomp.report.generation import detector_table, filter_table
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    table_name = snakemake.params.table
    if table_name == "table1":
        table = category_counts(read_parquet(snakemake.input.sugarcrepe),
                                read_parquet(snakemake.input.bivlc))
        if hasattr(snakemake.input, "winoground"):  # Winoground's row (released or world)
            table = with_winoground(table, read_parquet(snakemake.input.winoground),
                                    snakemake.params.winoground_name)
    elif table_name == "filter":  # every rate with its CI over the filtered items
        p = snakemake.params
        selection = read_parquet(snakemake.input.selection)
        intervals = ratio_intervals(filter_ratios(selection), len(selection),
                                    benchmark="bivlc_filter", n_resamples=p.resamples,
                                    seed=p.seed, confidence=p.confidence, method=p.method)
        table = filter_table(json.loads(Path(snakemake.input.report).read_text()), intervals)
    elif table_name == "table4":
        records = [json.loads(Path(p).read_text()) for p in snakemake.input.metrics]
        table = detector_table(records, snakemake.params.labels)
    else:
        raise ValueError(f"unknown generation table {table_name!r}")
    write_table(table, Path(snakemake.output.csv).with_suffix(""))
    log.info("\n%s", table)
