"""results/summary.md: headline numbers with confidence intervals, and reproduced vs
published where an interval exists (`vlcomp.report.summary`)."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.claim_verdicts import read_claims
from vlcomp.report.findings import difference, read_findings
from vlcomp.report.findings_text import markdown_overview
from vlcomp.report.intervals import load_cell_intervals
from vlcomp.report.run_numbers import RunNumbers
from vlcomp.report.summary import EXACT_TABLES, headline_table, published_rows, write_summary

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    lookup = load_cell_intervals(p.benchmarks, inp.intervals, inp.seeds, p.groups, p.kinds,
                                 p.labels, robustness=inp.robustness, detectors=inp.detectors,
                                 detector_labels=p.detector_labels,
                                 companions=inp.companions)
    headline = headline_table(lookup.numbers, lookup.columns, p.groups)
    compared = {f.removeprefix("results/tables/").removesuffix("_vs_published.csv"):
                pd.read_csv(f) for f in inp.published}
    exact = [k for k in EXACT_TABLES if k in compared]  # counts, caption metrics: no CI
    compared = {k: v for k, v in compared.items() if k not in exact}
    numbers = RunNumbers(Path(inp.intervals[0]).parent, p.groups)  # results/uncertainty

    def gap(table: str, a: str, b: str, column: str):
        """Our paired a - b on the table's column (None without a benchmark behind it)."""
        key = lookup.column_keys(table).get(column)
        return key and difference(numbers, *key, a, b, p.confidence)

    published, without = published_rows(compared, lookup, p.aliases, gap)
    write_summary(snakemake.output[0], headline, published, len(without), resamples=p.resamples,
                  seed=p.seed, confidence=p.confidence, method=p.method,
                  findings=markdown_overview(read_claims(inp.claims),
                                             read_findings(inp.findings)),
                  exact=exact)
    log.info("%d models/groups x %d headline metrics; %d published comparisons with a CI, "
             "%d without:\n%s", len(headline), len(lookup.columns), len(published),
             len(without), "\n".join(without))
