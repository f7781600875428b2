"""EqBen-style pairs from the world's test scenes (one object changed), and their second images."""

from pathlib import Path

from vlcomp.benchmarks.winoground_world import render_pair_images
from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.config import WorldConfig
from vlcomp.world.equivariance import equivariance_items

with job_log(snakemake.log[0]) as log:
    cfg = WorldConfig.from_dict(snakemake.params.world)
    scenes = {k: s for k, s in read_scenes(snakemake.input.scenes).items() if s.split == "test"}
    captions = read_parquet(snakemake.input.captions)
    items, edited = equivariance_items(scenes, captions[captions.split == "test"], cfg,
                                       snakemake.params.seed)
    images = render_pair_images(edited, cfg, Path(snakemake.output.images))
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d pairs from %d test scenes; per subset %s", len(items), len(scenes),
             items.subset.value_counts().sort_index().to_dict())
