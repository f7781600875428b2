"""VisualGPTScore appendix Tables 11-12: text, image and group scores of the BLIP and BLIP-2
models on the 2 x 2 pair sets, captioners at alpha = 0, 1 and the oracle alpha*."""

import json
from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.tables import read_results, write_table
from vlcomp.report.visualgptscore_appendix import pair_score_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    found = read_results(snakemake.input.metrics)
    results = {m: found[m] for m in p.models if m in found}  # rows in configuration order
    alpha = {}
    for path in snakemake.input.alpha:
        record = json.loads(Path(path).read_text())
        alpha.setdefault(record["model"], {})[record["benchmark"]] = record
    table = pair_score_table(results, alpha, p.labels, p.names)
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=p.notes)
    log.info("\n%s", table)
