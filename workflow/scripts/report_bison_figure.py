"""BISON Fig. 9 as grouped bars: % of predictions each query alteration changes, per model."""

from vlcomp.jobs import job_log
from vlcomp.report.figures import bar_plot, bison_fig9_values
from vlcomp.report.tables import bison_fig9_table, read_results

with job_log(snakemake.log[0]) as log:
    results = read_results(snakemake.input)
    values, errors = bison_fig9_values(bison_fig9_table(results, snakemake.params.groups))
    bar_plot(values, snakemake.output.png, title="BISON: predictions changed by query alterations",
             ylabel="changed predictions (%)", errors=errors, pdf=snakemake.output.pdf)
    log.info("\n%s", values)
