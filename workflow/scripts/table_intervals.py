"""Each paper table's companion with every number's confidence interval:
results/tables/{paper}/{table}_ci.{csv,md} (`vlcomp.report.table_ci`). One job writes every
table's."""

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
    p, out = snakemake.params, snakemake.output
    for i, spec in enumerate(p.tables):
        key, files = spec["key"], spec["files"]
        cells, released = {}, False
        if files["benchmarks"]:  # BiVLC Table 1: removal rates resampled over SugarCrepe's
            sugarcrepe, bivlc = (read_parquet(f) for f in files["benchmarks"])
            cells = removal_cells(sugarcrepe, bivlc, n_resamples=p.resamples, seed=p.seed,
                                  confidence=p.confidence, method=p.method)
            released = not cells  # the hub's BiVLC beside SugarCrepe's release: no match
        if files["cells"]:  # intervals no benchmark's uncertainty table has
            cells |= table_cell_intervals(key, files["cells"], p.model_labels, p.names)
        lookup = load_cell_intervals(spec["benchmarks"], files["intervals"], files["seeds"],
                                     p.groups, spec["kinds"], p.labels,
                                     robustness=files["robustness"],
                                     detectors=files["detectors"],
                                     detector_labels=p.detector_labels, cells=cells)
        table = pd.read_csv(files["table"], index_col=spec["index"])
        intervals = interval_table(key, table, lookup, p.best_of, released)
        write_csv(intervals, out.csv[i], index=False)
        with atomic_path(Path(out.md[i])) as tmp:
            tmp.write_text(interval_markdown(table, intervals, p.confidence), encoding="utf-8")
        missing = intervals[intervals.note == NO_INTERVAL]
        log.info("%s: %d numbers, %d with a CI, %d exact, %d without a CI%s", key,
                 len(intervals), int(intervals.ci_low.notna().sum()),
                 int(intervals.note.isin(EXACT_NOTES).sum()), len(missing),
                 "".join(f"\n  {r.row} / {r.column}" for r in missing.itertuples()))
