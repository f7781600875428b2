"""Bootstrap confidence intervals of every model's headline metrics on one choice benchmark,
paired tests between every two models on the same items, and the spread over training seeds
beside the spread over items (`vlcomp.metrics.uncertainty`)."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.uncertainty import bootstrap_models, seed_spread, with_metric_pairs
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    items = read_parquet(snakemake.input.benchmark)
    scores = {m: read_parquet(path) for m, path in zip(p.models, snakemake.input.scores,
                                                       strict=True)}
    boot = bootstrap_models(p.kind, items, scores, benchmark=snakemake.wildcards.benchmark,
                            options=p.options, n_resamples=p.resamples, seed=p.seed,
                            confidence=p.confidence, method=p.method)
    intervals = boot.table()
    write_csv(intervals, out.intervals, index=False)
    # every two models on each metric, and each model's metrics of the same items (I2T, T2I)
    comparisons = with_metric_pairs(boot.comparisons(), boot.metric_comparisons())
    write_csv(comparisons, out.comparisons, index=False)
    write_csv(seed_spread(intervals, p.groups, boot.group_table(p.groups)), out.seeds,
              index=False)
    log.info("%d items, %d models, %d resamples (seed %d): %d intervals, %d comparisons",
             len(items), len(scores), p.resamples, p.seed, len(intervals), len(comparisons))
