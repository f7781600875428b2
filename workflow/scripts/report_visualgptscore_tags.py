"""VisualGPTScore appendix Table 13: Winoground per Diwan et al. tag for the BLIP and BLIP-2
models, captioners also at each tag's oracle alpha*."""

import json
from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.tables import write_table
from vlcomp.report.visualgptscore_appendix import tag_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    records = {}
    for path in snakemake.input.tags:
        record = json.loads(Path(path).read_text())
        records[record["model"]] = record
    table = tag_table({m: records[m] for m in p.models}, p.labels)
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=p.notes)
    log.info("\n%s", table)
