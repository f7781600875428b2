"""Winoground's released items (examples.jsonl and images/ of the unpacked archive)."""

from pathlib import Path

from vlcomp.data.winoground import find_release, winoground_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    examples, image_paths = find_release(Path(snakemake.input.data))
    items, images = winoground_items(examples, image_paths,
                                     expected_items=snakemake.params.expected_items)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d items on %d images from %s", len(items), len(images), examples)
