"""The results page, results/index.html (`vlcomp.report.page`)."""

from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.report.page import PageInputs, write_page

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    figures = [Path(f) for f in snakemake.input.tables if f.endswith(".png")]
    inputs = PageInputs(Path("results"), p.benchmarks, p.models, figures, p.sample, p.seed,
                        labels=p.labels)
    out = write_page(inputs, snakemake.output[0])
    log.info("%s: %.1f MB; %d figures, item browsers of %s", out, out.stat().st_size / 1e6,
             len(figures), ", ".join(p.benchmarks))
