"""BISON's released items (COCO val2014) with captions joined from captions_val2014.json."""

from pathlib import Path

from vlcomp.data.bison import bison_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    inp = snakemake.input
    captions = Path(inp.coco_annotations) / "annotations" / "captions_val2014.json"
    items, images = bison_items(inp.annotations, captions, Path(inp.images) / "val2014",
                                expected_items=snakemake.params.expected_items)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d items on %d images", len(items), len(images))
