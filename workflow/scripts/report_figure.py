"""The ARO Fig. 3 radar plot (PNG and PDF) from the metric records of every model."""

from vlcomp.jobs import job_log
from vlcomp.report.figures import aro_radar_values, radar_plot
from vlcomp.report.tables import read_results

with job_log(snakemake.log[0]) as log:
    results = read_results(snakemake.input)
    p = snakemake.params
    values = aro_radar_values(results, p.get("groups"), p.get("compositional"),
                              p.get("downstream"))
    radar_plot(values, snakemake.output.png, title=snakemake.params.get("title"),
               pdf=snakemake.output.pdf)
    log.info("\n%s", values)
