"""Each reproduced table beside the papers' published numbers: their differences, or for a
world run their directions (vs chance, vs the first model). One job writes every table's."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.published import DIRECTION_NOTE, load_published, side_by_side
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    for i, spec in enumerate(p.tables):
        ours = pd.read_csv(snakemake.input[i], index_col=spec["index"])
        table = side_by_side(ours, load_published(spec["paper"], spec["tables"]), p.aliases,
                             spec["counterparts"], p.published_only, directions=p.directions)
        write_table(table, Path(snakemake.output.csv[i]).with_suffix(""),
                    notes=[DIRECTION_NOTE] if p.directions else [])
        found = int(table.reproduced.notna().sum())
        log.info("%s: %d published cells, %d with a reproduced value\n%s", spec["key"],
                 len(table), found, table)
