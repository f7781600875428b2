"""Bootstrap CIs of every classified model's top-1 / top-5 on one classification set
(resampling its evaluation images), paired tests between models, and the seed spread."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.classification_uncertainty import aligned_outcomes
from vlcomp.metrics.uncertainty import bootstrap_outcomes, seed_spread
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    tables = {m: read_parquet(f) for m, f in zip(p.models, snakemake.input.scores, strict=True)}
    outcomes, n_images = aligned_outcomes(tables)
    benchmark = f"classification_{snakemake.wildcards.cls_dataset}"
    boot = bootstrap_outcomes(outcomes, n_images, benchmark=benchmark, n_resamples=p.resamples,
                              seed=p.seed, confidence=p.confidence, method=p.method)
    intervals = boot.table()
    write_csv(intervals, out.intervals, index=False)
    write_csv(boot.comparisons(), out.comparisons, index=False)
    write_csv(seed_spread(intervals, p.groups, boot.group_table(p.groups)), out.seeds,
              index=False)
    log.info("%d images, %d models, %d resamples (seed %d)", n_images, len(outcomes),
             p.resamples, p.seed)
