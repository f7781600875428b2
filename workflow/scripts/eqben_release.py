"""EqBen's labelled 10% sub-test set as 2x2 pair items (YouCook2's .npy frames written as PNG)."""

from pathlib import Path

from vlcomp.data.eqben import eqben_items, find_release, frames_as_png
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    annotation = Path(snakemake.input.annotation)
    _, image_root = find_release(Path(snakemake.input.images).parent)
    items, images = eqben_items(annotation, image_root,
                                expected_items=snakemake.params.expected_items)
    frames = Path(snakemake.output.frames)
    frames.mkdir(parents=True, exist_ok=True)
    images = frames_as_png(images, frames)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d items on %d images from %s; per subset %s", len(items), len(images),
             annotation, items.subset.value_counts().sort_index().to_dict())
