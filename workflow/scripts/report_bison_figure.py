"""BISON Fig. 9 as grouped bars: % of predictions each query alteration changes, per model,
with 95 % bootstrap CIs (from the bison_altered uncertainty tables)."""

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.figures import bar_plot, bison_fig9_intervals
from vlcomp.report.intervals import group_intervals

with job_log(snakemake.log[0]) as log:
    intervals, seeds = (pd.read_csv(f) for f in snakemake.input)
    values, low, high = bison_fig9_intervals(group_intervals(intervals, seeds,
                                                             snakemake.params.groups))
    bar_plot(values, snakemake.output.png, title="BISON: predictions changed by query "
             "alterations, 95 % CIs (Fig. 9)", ylabel="changed predictions (%)",
             bounds=(low, high), pdf=snakemake.output.pdf)
    log.info("\n%s", values)
