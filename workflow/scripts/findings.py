"""results/findings.{csv,md}: the papers' claims (vlcomp/report/claims.yaml) tested on this
run's uncertainty tables, and the report's front page with them (`vlcomp.report.findings`)."""

from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.findings import (
    RunNumbers,
    evaluate,
    load_claims,
    write_findings,
    write_front_page,
)

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    folder = Path(snakemake.input.intervals[0]).parent  # results/uncertainty
    findings = evaluate(load_claims(), RunNumbers(folder, p.groups), p.confidence)
    write_findings(findings, out.csv, out.md, p.confidence)
    write_front_page(Path(snakemake.input.front_page).read_text(encoding="utf-8"), findings,
                     out.front_page, p.confidence)
    log.info("%s", findings.verdict.value_counts().to_string())
    log.info("\n%s", findings[["id", "effect", "ci_low", "ci_high", "verdict"]].to_string())
