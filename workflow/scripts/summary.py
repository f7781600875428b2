"""results/summary.md: headline numbers with confidence intervals, and reproduced vs
published where an interval exists (`vlcomp.report.summary`)."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.generation import detector_cells
from vlcomp.report.robustness import interval_cells
from vlcomp.report.summary import (
    Numbers,
    headline_columns,
    headline_table,
    published_rows,
    sugarcrepe_subset_columns,
    write_summary,
)

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    intervals = {b: pd.read_csv(f) for b, f in zip(p.benchmarks, inp.intervals, strict=True)}
    seeds = {b: pd.read_csv(f) for b, f in zip(p.benchmarks, inp.seeds, strict=True)}
    numbers = Numbers(intervals, seeds, p.groups)
    columns = headline_columns(p.kinds, p.labels)
    headline = headline_table(numbers, columns, p.groups)
    compared = {f.removeprefix("results/tables/").removesuffix("_vs_published.csv"):
                pd.read_csv(f) for f in inp.published}
    cells = {}
    for path in inp.robustness:
        cells |= interval_cells(pd.read_csv(path), p.groups)
    for path in inp.detectors:
        cells |= detector_cells(pd.read_csv(path), p.detector_labels)
    for path in inp.alpha:  # results/tables/visualgptscore/table{2,4}_ci.csv
        table = "visualgptscore/" + Path(path).name.removesuffix("_ci.csv")
        cells |= {(table, r.row, r.column): (r.value, r.ci_low, r.ci_high, None)
                  for r in pd.read_csv(path).itertuples()}
    published, without = published_rows(compared, numbers, columns, p.aliases,
                                        sugarcrepe_subset_columns(intervals), cells)
    write_summary(snakemake.output[0], headline, published, len(without), resamples=p.resamples,
                  seed=p.seed, confidence=p.confidence, method=p.method)
    log.info("%d models/groups x %d headline metrics; %d published comparisons with a CI, "
             "%d without:\n%s", len(headline), len(columns), len(published), len(without),
             "\n".join(without))
