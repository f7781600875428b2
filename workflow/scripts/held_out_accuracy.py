"""An ITM model's accuracy on the validation protocol's held-out halves of a 2 x 2 pair
benchmark (VisualGPTScore Table 4a's ITMScore row): the same seeded halves as the captioners'
alpha curves, mean +- std."""

from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.alpha_curves import held_out_accuracy, with_scores

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    merged = with_scores(read_parquet(snakemake.input.benchmark), snakemake.input.scores)
    record = held_out_accuracy(merged, metric=p.kind, options=p.options, seed=p.seed,
                               repeats=p.repeats)
    record.update(model=snakemake.wildcards.model, benchmark=snakemake.wildcards.benchmark)
    write_json(record, snakemake.output[0])
    held = record["validation"]["summary"]["test_accuracy"]
    log.info("all items %.2f; held-out halves %.2f +- %.2f (%d repeats, seed %d)",
             record["accuracy"], held["mean"], held["std"], p.repeats, p.seed)
