"""A captioner's choice pairs and text priors for one shard: its block of the whole picture
chunks and of the null prior's calls, the model loaded once; rule
score_generative_choice_gather joins the shards."""

from vlcomp.io import write_npz
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.choice_job import read_choice_job, score_choice_shard

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    job = read_choice_job(p.choice, inp.benchmarks, inp.imagesets, p.alpha, p.train_images,
                          inp.train_images or None)
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    arrays = score_choice_shard(scorer, job, p.null if p.alpha else None,
                                snakemake.wildcards.shard, batch_size=batch,
                                image_batch=p.image_batch)
    write_npz(arrays, snakemake.output[0])
    log.info(passes.summary())
