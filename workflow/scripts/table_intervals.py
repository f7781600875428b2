"""A paper table's companion with every number's confidence interval:
results/tables/{paper}/{table}_ci.{csv,md} (`vlcomp.report.table_ci`)."""

from pathlib import Path

import pandas as pd

from vlcomp.io import atomic_path, read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.generation import removal_cells
from vlcomp.report.intervals import load_cell_intervals, table_cell_intervals
from vlcomp.report.table_ci import (
    EXACT_NOTES,
    NO_INTERVAL,
    interval_markdown,
    interval_table,
)
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    cells, released = {}, False
    if inp.benchmarks:  # BiVLC Table 1: removal rates resampled over the SugarCrepe items
        sugarcrepe, bivlc = (read_parquet(f) for f in inp.benchmarks)
        cells = removal_cells(sugarcrepe, bivlc, n_resamples=p.resamples, seed=p.seed,
                              confidence=p.confidence, method=p.method)
        released = not cells  # the hub's BiVLC beside SugarCrepe's release: no item matches
    if inp.cells:  # intervals no benchmark's uncertainty table has
        cells |= table_cell_intervals(p.table, inp.cells, p.model_labels, p.names)
    lookup = load_cell_intervals(p.benchmarks, inp.intervals, inp.seeds, p.groups, p.kinds,
                                 p.labels, robustness=inp.robustness, detectors=inp.detectors,
                                 detector_labels=p.detector_labels, cells=cells)
    table = pd.read_csv(inp.table, index_col=p.index)
    intervals = interval_table(p.table, table, lookup, p.best_of, released)
    write_csv(intervals, snakemake.output.csv, index=False)
    with atomic_path(Path(snakemake.output.md)) as tmp:
        tmp.write_text(interval_markdown(table, intervals, p.confidence), encoding="utf-8")
    missing = intervals[intervals.note == NO_INTERVAL]
    log.info("%s: %d numbers, %d with a CI, %d exact, %d without a CI%s", p.table,
             len(intervals), int(intervals.ci_low.notna().sum()),
             int(intervals.note.isin(EXACT_NOTES).sum()),
             len(missing), "".join(f"\n  {r.row} / {r.column}" for r in missing.itertuples()))
