"""One paper table (csv + markdown) from the metric records of every model."""

from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.paper_tables import build_table
from vlcomp.report.ranking_notes import ranking_notes
from vlcomp.report.robustness import gallery_notes
from vlcomp.report.tables import read_results, write_table

with job_log(snakemake.log[0]) as log:
    results = read_results(snakemake.input)
    options = dict(snakemake.params.options)
    if snakemake.params.get("groups") is not None:
        options["groups"] = snakemake.params.groups
    table = build_table(snakemake.params.table, results, **options)
    # robustness tables also say which images text->image ranked, and retrieval rows how a
    # model ranked where it re-ranked by ITM (from the records)
    notes = [*(snakemake.params.get("notes") or ()),
             *gallery_notes(snakemake.params.table, results), *ranking_notes(results)]
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=notes)
    log.info("\n%s", table)
