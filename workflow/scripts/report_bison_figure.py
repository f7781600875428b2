"""BISON Fig. 9 as grouped bars: % of predictions each query alteration changes, per model."""

import json
from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.figures import bar_plot, bison_fig9_values
from vlcomp.report.tables import bison_fig9_table

with job_log(snakemake.log[0]) as log:
    results: dict[str, dict] = {}
    for path in map(Path, snakemake.input):
        record = json.loads(path.read_text())
        results.setdefault(record["model"], {})[record["benchmark"]] = record
    values, errors = bison_fig9_values(bison_fig9_table(results, snakemake.params.groups))
    bar_plot(values, snakemake.output.png, title="BISON: predictions changed by query alterations",
             ylabel="changed predictions (%)", errors=errors)
    log.info("\n%s", values)
