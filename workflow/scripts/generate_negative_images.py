"""Render BiVLC-style negative images: the scene each negative caption describes."""

from pathlib import Path

from vlcomp.data.world import read_scenes
from vlcomp.generate.world_renderer import generate_negative_images
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    cfg = WorldConfig.from_dict(snakemake.params.world)
    items = read_parquet(snakemake.input.sugarcrepe)
    edited = read_scenes(snakemake.input.negative_scenes)
    manifest = generate_negative_images(items, edited, cfg, Path(snakemake.output.images))
    write_parquet(manifest, snakemake.output.manifest)
    kept = manifest[manifest.kept][["image_id", "path"]].reset_index(drop=True)
    write_parquet(kept, snakemake.output.imageset)
    log.info("%d images rendered, %d kept by the filter", len(manifest), len(kept))
