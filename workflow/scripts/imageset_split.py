"""The image set of one split of a dataset (image_id, path)."""


from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    images = read_parquet(snakemake.input[0])
    subset = images[images.split == snakemake.wildcards.split][["image_id", "path"]]
    write_parquet(subset.reset_index(drop=True), snakemake.output[0])
    log.info("%d images", len(subset))
