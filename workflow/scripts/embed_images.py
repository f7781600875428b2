"""Embed one image set with one model (each image is encoded once per model)."""

from pathlib import Path

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.embeddings import embed_image_sets, save_embeddings

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "images", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    images = read_parquet(snakemake.input.imageset)
    (emb,), n_distinct = embed_image_sets(scorer, [images],
                                          batch_size=batch,
                                          workers=snakemake.params.workers)
    log.info("%d distinct images (by content) in %d rows", n_distinct, len(images))
    save_embeddings(emb, images.image_id.tolist(), Path(snakemake.output.npy),
                    Path(snakemake.output.ids))
    log.info("%d images -> %s", len(images), emb.shape)
    log.info(passes.summary())
