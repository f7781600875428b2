"""BiVLC generation tables: Table 1 (counts), the automatic filter, Table 4 (detectors)."""

import json
from pathlib import Path

from vlcomp.benchmarks.bivlc import category_counts
from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.generation import detector_table, filter_table
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    table_name = snakemake.params.table
    if table_name == "table1":
        table = category_counts(read_parquet(snakemake.input.sugarcrepe),
                                read_parquet(snakemake.input.bivlc))
    elif table_name == "filter":
        table = filter_table(json.loads(Path(snakemake.input.report).read_text()))
    elif table_name == "table4":
        records = [json.loads(Path(p).read_text()) for p in snakemake.input.metrics]
        table = detector_table(records, snakemake.params.labels)
    else:
        raise ValueError(f"unknown generation table {table_name!r}")
    write_table(table, Path(snakemake.output.csv).with_suffix(""))
    log.info("\n%s", table)
