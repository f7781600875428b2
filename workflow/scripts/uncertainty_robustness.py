"""Bootstrap CIs of every robustness number (ARO Tables 3-4, Hendriksen et al., granularity)
over each gallery's images, and paired tests between models on every condition
(`vlcomp.metrics.robustness_uncertainty`)."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.robustness_uncertainty import RobustnessBootstrap
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    items = {m: read_parquet(f) for m, f in zip(p.models, snakemake.input, strict=True)}
    boot = RobustnessBootstrap(items, n_resamples=p.resamples, seed=p.seed,
                               confidence=p.confidence, method=p.method)
    intervals = boot.table(p.groups)
    # which report tables each gallery feeds (config ... galleries.<g>.tables)
    intervals["tables"] = intervals.gallery.map(lambda g: " ".join(p.gallery_tables[g]))
    write_csv(intervals, out.intervals, index=False)
    comparisons = boot.comparisons()
    write_csv(comparisons, out.comparisons, index=False)
    log.info("%d galleries (%s images), %d conditions, %d models: %d intervals, %d "
             "comparisons; %d resamples (seed %d, %s)", len(boot.n_images), boot.n_images,
             len(boot.conditions()), len(items), len(intervals), len(comparisons),
             p.resamples, p.seed, p.method)
