"""Zero-shot class embeddings of one model for every classification set: per class, the mean
of the normalised text embeddings of its name in every prompt template, renormalised."""

from pathlib import Path

import numpy as np

from vlcomp.benchmarks.classification import zero_shot_weights
from vlcomp.benchmarks.classification_sets import class_prompts
from vlcomp.jobs import job_log
from vlcomp.models.precision import use_for_this_job
from vlcomp.models.registry import build_scorer
from vlcomp.score.embeddings import embed_texts, save_embeddings
from vlcomp.torch_threads import set_torch_threads
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    set_torch_threads(p.threads)
    use_for_this_job(p.device, p.autocast)
    scorer = build_scorer(snakemake.wildcards.model, p.entry, p.device)
    world = WorldConfig.from_dict(p.world) if p.world else None
    for dataset, npy, ids in zip(p.datasets, out.npy, out.ids, strict=True):
        names, templates = class_prompts(dataset, world)
        weights = zero_shot_weights(
            lambda texts: embed_texts(scorer, texts, batch_size=p.text_batch_size),
            names, templates)
        save_embeddings(weights.astype(np.float32), names, Path(npy), Path(ids))
        log.info("%s: %d classes x %d templates -> %s", dataset, len(names), len(templates),
                 weights.shape)
