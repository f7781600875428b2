"""One model's cells beside every published number they face, across the paper tables."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.model_vs_published import model_beside_published
from vlcomp.report.published import load_published
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    tables = {key: (pd.read_csv(path, index_col=p.index[key]),
                    load_published(*p.published[key]))
              for key, path in zip(p.tables, snakemake.input, strict=True)}
    table = model_beside_published(p.label, tables, p.aliases)
    notes = [f"{p.label}: its cells in the paper tables beside every published row of the "
             "same column (published rows without a value of this model are left out)."]
    if p.world:
        notes.append("A world run: its benchmarks stand for the papers' data, so a "
                     "difference to a published number measures nothing.")
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=notes)
    log.info("%d published cells faced in %d tables\n%s", len(table),
             table.index.get_level_values(0).nunique() if len(table) else 0, table)
