"""Generate the candidate images of one shard's block of a generated set's captions (the
backend loaded once for the block); rule generate_candidates_gather joins the shards."""

from vlcomp.generate.backends import build_backend
from vlcomp.generate.candidate_shards import shard_items
from vlcomp.generate.candidates import generate_candidates, generation_items
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.torch_threads import set_torch_threads

with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    options = snakemake.params.options
    everything = generation_items(read_parquet(snakemake.input.source))
    items = shard_items(everything, snakemake.wildcards.shard)
    backend = build_backend(options, snakemake.params.world, snakemake.params.device)
    manifest = generate_candidates(
        items.item_id.tolist(), [t[1] for t in items.texts], backend,
        snakemake.output.images, int(options.get("seed", 0)),
        image_format=options.get("image_format", "png"),
    )
    write_parquet(manifest, snakemake.output.candidates)
    log.info("shard %s: %d images for captions %d-%d of %d with backend %s",
             snakemake.wildcards.shard, len(manifest), items.index.min() if len(items) else 0,
             items.index.max() if len(items) else -1, len(everything), backend.name)
