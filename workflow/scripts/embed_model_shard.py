"""Embed one shard's block of the distinct images and texts of a model's sets (the model
loaded once for the whole block); rule embed_model_gather joins the shards."""

from vlcomp.io import read_parquet, write_npz
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import block_batch, job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.embedding_shards import embed_shard

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "images", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    arrays = embed_shard(
        scorer, [read_parquet(s) for s in snakemake.input.imagesets],
        [read_parquet(t) for t in snakemake.input.texts], snakemake.wildcards.shard,
        batch_size=batch, text_batch_size=p.text_batch_size, workers=p.workers,
        unit_batch=block_batch(p.batch_size, batch),
    )
    write_npz(arrays, snakemake.output[0])
    for kind in ("images", "texts"):
        log.info("shard %s: %s %d:%d of %d", snakemake.wildcards.shard, kind,
                 arrays[f"{kind}_start"], arrays[f"{kind}_stop"], arrays[f"{kind}_total"])
    log.info(passes.summary())
