"""Generate N candidate negative images per negative caption of one generated set, or of one
shard's block of its captions (rule generate_candidates_shard; the gather joins them)."""


from vlcomp.generate.backends import build_backend
from vlcomp.generate.candidate_shards import shard_items
from vlcomp.generate.candidates import generate_candidates, generation_items
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    options = snakemake.params.options
    items = generation_items(read_parquet(snakemake.input.source))
    shard = getattr(snakemake.wildcards, "shard", None)
    if shard is not None:
        log.info("shard %s of %d captions", shard, len(items))
        items = shard_items(items, shard)
    backend = build_backend(options, snakemake.params.world, snakemake.params.device,
                            threads=snakemake.params.threads)
    manifest = generate_candidates(
        items.item_id.tolist(), [t[1] for t in items.texts], backend,
        snakemake.output.images, int(options.get("seed", 0)),
        image_format=options.get("image_format", "png"),
    )
    write_parquet(manifest, snakemake.output.candidates)
    log.info("%d images for %d captions with backend %s", len(manifest), len(items),
             backend.name)
