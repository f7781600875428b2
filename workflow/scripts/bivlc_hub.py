"""BiVLC's released test split (imirandam/BiVLC via datasets): pair items and its images,
each distinct image written once."""

from vlcomp.data.bivlc import bivlc_items, load_hub_dataset
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    rows = load_hub_dataset(snakemake.params.revision, snakemake.params.cache_dir)
    items, images = bivlc_items(rows, snakemake.output.images)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d items, %d distinct images; per category %s", len(items), len(images),
             items.subset.value_counts().sort_index().to_dict())
