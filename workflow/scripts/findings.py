"""results/claims.csv, findings.{csv,md}: the papers' claims (vlcomp/report/claims.yaml)
tested on this run's uncertainty tables, on the papers' models as the configuration maps
them (config paper_models), and the report's front page with them."""

from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.claim_verdicts import paper_counts, verdict_claims
from vlcomp.report.claims import load_claims
from vlcomp.report.findings import evaluate_findings
from vlcomp.report.findings_text import write_findings, write_front_page
from vlcomp.report.run_numbers import RunNumbers

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    folder = Path(snakemake.input.intervals[0]).parent  # results/uncertainty
    claims = load_claims()
    numbers = RunNumbers(folder, p.groups, tables=Path(out.csv).parent / "tables")
    findings = evaluate_findings(claims, numbers, p.paper_labels, p.confidence)
    verdicts = verdict_claims(claims, findings, p.confidence)
    write_findings(verdicts, findings, out.claims, out.csv, out.md, p.confidence, p.untested)
    write_front_page(Path(snakemake.input.front_page).read_text(encoding="utf-8"), verdicts,
                     findings, out.front_page)
    log.info("claims per paper:\n%s", paper_counts(verdicts).to_string(index=False))
    log.info("findings: %s", findings.verdict.value_counts().to_dict())
    log.info("\n%s", verdicts[["id", "run", "held", "verdict", "verdict_holm"]].to_string())
