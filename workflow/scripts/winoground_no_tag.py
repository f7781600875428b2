"""Winoground's items without any of Diwan et al.'s tags (VisualGPTScore's No-Tag columns)."""

from vlcomp.data.winoground_tags import add_diwan_tags, read_tag_assignments
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    items = add_diwan_tags(read_parquet(snakemake.input.winoground),
                           read_tag_assignments(snakemake.input.tags),
                           exclude=snakemake.params.exclude)
    kept = items[items.no_tag].reset_index(drop=True)
    images = read_parquet(snakemake.input.images)
    used = {i for ids in kept.image_ids for i in ids}
    write_parquet(kept, snakemake.output.benchmark)
    write_parquet(images[images.image_id.isin(used)].reset_index(drop=True),
                  snakemake.output.imageset)
    log.info("%d of %d items have no tag (excluded: %s)", len(kept), len(items),
             list(snakemake.params.exclude))
