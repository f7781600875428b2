"""Embed every evaluation image set and benchmark text set of one model in one job.

Each image is encoded once per model, even when two files hold the same picture (a shuffled
copy equal to its original, a crop of the whole image); each distinct text once, even when
several benchmarks share it (SugarCrepe-style and BiVLC-style items do). Loading torch and the
model once per model instead of once per set saves most of the evaluation's wall time on a
small CPU.
"""

from pathlib import Path

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.embeddings import embed_image_sets, embed_text_sets, save_embeddings

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch_size = job_batch(scorer, p.batch_size, "images", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    tables = [read_parquet(source) for source in snakemake.input.imagesets]
    arrays, n_distinct = embed_image_sets(scorer, tables, batch_size=batch_size,
                                          workers=snakemake.params.workers)
    for source, images, emb, npy, ids in zip(snakemake.input.imagesets, tables, arrays,
                                             snakemake.output.images, snakemake.output.image_ids,
                                             strict=True):
        save_embeddings(emb, images.image_id.tolist(), Path(npy), Path(ids))
        log.info("%s: %d images -> %s", source, len(images), emb.shape)
    log.info("%d distinct images (by content) in %d rows", n_distinct,
             sum(len(t) for t in tables))
    n_texts = embed_text_sets(scorer, [read_parquet(t) for t in snakemake.input.texts],
                              snakemake.output.texts, snakemake.output.text_ids,
                              batch_size=snakemake.params.text_batch_size)
    log.info("%d distinct texts embedded for %d text sets", n_texts,
             len(snakemake.input.texts))
    log.info(passes.summary())
