"""ILSVRC2012's train folders and validation images (labels from the devkit when the folder
is flat) as two image sets (image_id, path, label, split, wnid)."""

from pathlib import Path

from vlcomp.data.classification import (
    IMAGENET_TRAIN_IMAGES,
    IMAGENET_VAL_IMAGES,
    imagenet_train_table,
    imagenet_val_table,
)
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

DEVKIT = "ILSVRC2012_devkit_t12.tar.gz"

with job_log(snakemake.log[0]) as log:
    inp, check = snakemake.input, snakemake.params.check_sizes
    val = imagenet_val_table(Path(inp.val).parent, Path(inp.devkit).parent / DEVKIT,
                             expected=IMAGENET_VAL_IMAGES if check else None)
    train = imagenet_train_table(Path(inp.train).parent,
                                 expected=IMAGENET_TRAIN_IMAGES if check else None)
    for name, table in (("train", train), ("val", val)):
        write_parquet(table, getattr(snakemake.output, name))
        log.info("imagenet %s: %d images, %d classes", name, len(table), table.label.nunique())
