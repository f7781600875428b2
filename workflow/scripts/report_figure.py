"""The ARO Fig. 3 radar plot (PNG) from the metric records of every model."""

import json
from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.figures import aro_radar_values, radar_plot

with job_log(snakemake.log[0]) as log:
    results: dict[str, dict] = {}
    for path in map(Path, snakemake.input):
        record = json.loads(path.read_text())
        results.setdefault(record["model"], {})[record["benchmark"]] = record
    values = aro_radar_values(results, snakemake.params.get("groups"))
    radar_plot(values, snakemake.output.png, title=snakemake.params.get("title"))
    log.info("\n%s", values)
