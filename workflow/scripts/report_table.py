"""One paper table (csv + markdown) from the metric records of every model."""

from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.tables import build_table, read_results, write_table

with job_log(snakemake.log[0]) as log:
    results = read_results(snakemake.input)
    options = dict(snakemake.params.options)
    if snakemake.params.get("groups") is not None:
        options["groups"] = snakemake.params.groups
    table = build_table(snakemake.params.table, results, **options)
    write_table(table, Path(snakemake.output.csv).with_suffix(""),
                notes=snakemake.params.get("notes") or ())
    log.info("\n%s", table)
