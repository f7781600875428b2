"""Join a captioner's choice shards into its score and prior files, as the unsharded job
(score_pair_model.py, rule score_generative_choice) writes them."""

import numpy as np

from vlcomp.jobs import job_log
from vlcomp.score.choice_job import (
    join_choice_shards,
    read_choice_job,
    read_llm_priors,
    write_choice_scores,
    write_priors,
)

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    job = read_choice_job(p.choice, inp.benchmarks, inp.imagesets, p.alpha, p.train_images,
                          inp.train_images or None)
    shards = []
    for path in inp.shards:
        with np.load(path) as arrays:
            shards.append({k: arrays[k] for k in arrays.files})
    null = p.null if p.alpha else None
    scored, null_matrix = join_choice_shards(job, null, shards, p.image_batch)
    write_choice_scores(job, scored, dict(zip(p.choice, out.scores, strict=True)))
    if p.alpha:
        write_priors(job, p.null, null_matrix, scored,
                     read_llm_priors(p.llm, inp.llm_priors, job.union), out.priors,
                     out.prior_images[0])
    log.info("%d shards joined: %d pairs, %d prior texts", len(shards), len(scored.values),
             len(job.union))
