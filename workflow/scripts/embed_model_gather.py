"""Join a model's embedding shards into the per-set files an unsharded job writes."""

from pathlib import Path

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.score.embedding_shards import join_shards
from vlcomp.score.embeddings import distinct_images, distinct_texts, save_embeddings, save_text_sets

with job_log(snakemake.log[0]) as log:
    shards = list(snakemake.input.shards)
    tables = [read_parquet(s) for s in snakemake.input.imagesets]
    if tables:
        rows, positions = distinct_images(tables)
        vectors = join_shards(shards, "images")
        if len(vectors) != len(rows):
            raise ValueError(f"{len(shards)} shards hold {len(vectors)} images, the sets "
                             f"{len(rows)} distinct ones")
        for source, images, where, npy, ids in zip(
                snakemake.input.imagesets, tables, positions, snakemake.output.images,
                snakemake.output.image_ids, strict=True):
            save_embeddings(vectors[where], images.image_id.tolist(), Path(npy), Path(ids))
            log.info("%s: %d images", source, len(images))
    texts = getattr(snakemake.input, "texts", [])  # rule embed_images_gather has none
    distinct, sets = distinct_texts([read_parquet(t) for t in texts])
    if sets:
        vectors = join_shards(shards, "texts")
        if len(vectors) != len(distinct):
            raise ValueError(f"{len(shards)} shards hold {len(vectors)} texts, the sets "
                             f"{len(distinct)} distinct ones")
        save_text_sets(vectors, distinct, sets, snakemake.output.texts,
                       snakemake.output.text_ids)
    log.info("%d shards joined: %d text sets, %d distinct texts", len(shards), len(sets),
             len(distinct))
