"""SugarCrepe's released items (7 subsets) on COCO val2017, and their image set."""

from pathlib import Path

from vlcomp.data.sugarcrepe import sugarcrepe_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    folder = Path(snakemake.input.subsets[0]).parent
    items, images, version = sugarcrepe_items(folder, Path(snakemake.input.images) / "val2017")
    items["release"] = version
    write_parquet(items, snakemake.output.sugarcrepe)
    write_parquet(images, snakemake.output.imageset)
    log.info("release %s: %d items on %d images; per subset %s", version, len(items),
             len(images), items.subset.value_counts().sort_index().to_dict())
