"""VisualGPTScore Table 1: chance, ITM, VisualGPTScore (α = 0) and discriminative models on
every choice benchmark, and the best discriminative model."""

import json
from pathlib import Path

from vlcomp.data.vl_checklist import sampling_note
from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.tables import read_results, write_table
from vlcomp.report.visualgptscore import chance_level, method_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    results = read_results(snakemake.input.metrics)
    chance = {Path(f).stem: chance_level(read_parquet(f), p.metrics[Path(f).stem])
              for f in snakemake.input.benchmarks}
    table = method_table(results, p.metrics, chance, p.groups, p.roles, p.names)
    notes = [sampling_note(json.loads(Path(f).read_text())) for f in snakemake.input.sampling]
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=notes)
    log.info("\n%s", table)
