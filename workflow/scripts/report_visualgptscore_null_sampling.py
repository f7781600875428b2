"""VisualGPTScore appendix Table 5: each captioner's oracle-α* text score and α* with P(t)
from n null images (and n training images), mean and std over the sampling seeds, and null
against training images with t intervals over the seeds."""

from pathlib import Path

import pandas as pd

from vlcomp.io import atomic_path, read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.alpha_curves import with_scores
from vlcomp.metrics.null_sampling import (
    null_against_train,
    null_sampling_runs,
    null_sampling_summary,
)
from vlcomp.report.tables import write_csv, write_table
from vlcomp.report.visualgptscore import null_sampling_table

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    items = read_parquet(inp.benchmark[0])
    runs, summaries = [], {}
    for model, scores, priors in zip(p.models, inp.scores, inp.priors, strict=True):
        found = null_sampling_runs(with_scores(items, scores), read_parquet(priors), p.counts,
                                   p.seeds, metric=p.kind, options=p.options, step=p.step,
                                   sources=p.sources)
        summaries[p.labels[model]] = null_sampling_summary(found)
        runs.append(found.assign(model=model))
        log.info("%s:\n%s", model, found.to_string(index=False))
    table = null_sampling_table(summaries, p.benchmark, p.names)
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=p.notes)
    with atomic_path(snakemake.output.runs) as tmp:
        pd.concat(runs)[["model", "source", "seed", "n", "alpha", "accuracy"]].to_csv(
            tmp, index=False)
    write_csv(null_against_train(pd.concat(runs), p.confidence), snakemake.output.intervals,
              index=False)
    log.info("\n%s", table)
