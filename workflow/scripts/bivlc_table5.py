"""BiVLC Table 5: TROHN-Text instances per category (released rows carry none: totals only)."""

from pathlib import Path

import pandas as pd

from vlcomp.benchmarks.bivlc_counts import trohn_text_counts
from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    parts = [read_parquet(path).assign(split=split)
             for split, path in snakemake.input.items()]
    rows = pd.concat(parts, ignore_index=True)
    table = trohn_text_counts(rows, split_column="split")
    notes = [table.attrs["note"]] if table.attrs.get("note") else []
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=notes)
    log.info("%d TROHN-Text rows (%s)\n%s", len(rows), dict(rows.split.value_counts()), table)
