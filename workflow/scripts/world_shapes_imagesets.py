"""The world's shape-classification set: one-object scenes rendered as PNGs, one image set per
split (image_id, path, label, split, class_name, color, size)."""

from vlcomp.benchmarks.classification_sets import split_imagesets
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.classification import classification_scenes, render_classification_set
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    cfg = WorldConfig.from_dict(p.world)
    scenes = classification_scenes(cfg, p.seed, p.sizes)
    table = render_classification_set(scenes, cfg, snakemake.output.images)
    for split, rows in split_imagesets(table, "world_shapes").items():
        write_parquet(rows, getattr(snakemake.output, split))
        log.info("world_shapes %s: %d images of %d shapes", split, len(rows),
                 rows.label.nunique())
