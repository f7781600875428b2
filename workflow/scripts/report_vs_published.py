"""One reproduced table beside the papers' published numbers, with the differences."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.published import load_published, side_by_side
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    index = [0, 1] if snakemake.params.table == "table6" else 0
    ours = pd.read_csv(snakemake.input[0], index_col=index)
    table = side_by_side(ours, load_published(snakemake.params.paper, snakemake.params.table))
    write_table(table, Path(snakemake.output.csv).with_suffix(""))
    log.info("\n%s", table)
