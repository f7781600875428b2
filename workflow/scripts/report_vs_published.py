"""One reproduced table beside the papers' published numbers: their differences, or for a
world run their directions (vs chance, vs the first model)."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.published import DIRECTION_NOTE, load_published, side_by_side
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    ours = pd.read_csv(snakemake.input[0], index_col=p.index)
    table = side_by_side(ours, load_published(p.paper, p.tables), p.aliases, p.counterparts,
                         p.published_only, directions=p.directions)
    write_table(table, Path(snakemake.output.csv).with_suffix(""),
                notes=[DIRECTION_NOTE] if p.directions else [])
    found = int(table.reproduced.notna().sum())
    log.info("%d published cells, %d with a reproduced value\n%s", len(table), found, table)
