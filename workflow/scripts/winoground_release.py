"""Winoground's released items (examples.jsonl and images/ of the unpacked archive)."""

from pathlib import Path

from vlcomp.data.winoground import winoground_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    root = Path(snakemake.input.data)
    found = sorted(root.rglob("examples.jsonl"))
    if not found:
        raise FileNotFoundError(f"{root}: no examples.jsonl (Winoground is gated; "
                                "config/README.md says how to get it)")
    examples = found[0]
    items, images = winoground_items(examples, examples.parent / "images",
                                     expected_items=snakemake.params.expected_items)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d items on %d images from %s", len(items), len(images), examples)
