"""Rank correlation of all evaluated models between every two benchmark metrics (Kendall τ,
Spearman ρ, p-values) as a table, and the heatmap of both (PNG and PDF)."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.correlation import (
    correlation_square,
    headline_matrix,
    plot_heatmap,
    rank_correlations,
)
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    intervals = {b: (t := pd.read_csv(path))[t.model.isin(p.models)]
                 for b, path in zip(p.benchmarks, snakemake.input, strict=True)}
    matrix = headline_matrix(intervals, p.kinds, p.labels)
    pairs = rank_correlations(matrix)
    write_table(pairs.set_index(["benchmark_a", "benchmark_b"]),
                Path(out.csv).with_suffix(""))
    names = list(matrix.columns)
    plot_heatmap(correlation_square(pairs, names), correlation_square(pairs, names,
                                                                      "spearman_rho"),
                 [out.png, out.pdf], "Do benchmarks rank models alike? (BiVLC Finding 3)",
                 models=len(matrix.dropna(how="all")))
    log.info("%d models x %d benchmark metrics: %d pairs; median Kendall tau %.2f",
             len(matrix), len(names), len(pairs), pairs.kendall_tau.median())
