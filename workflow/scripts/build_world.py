"""Render the synthetic world: images, captions and scene graphs."""

from pathlib import Path

from vlcomp.data.world import build_world
from vlcomp.jobs import job_log
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    cfg = WorldConfig.from_dict(snakemake.params.world)
    out = snakemake.output
    build_world(cfg, Path(out.images), Path(out.images_table), Path(out.captions),
                Path(out.scenes))
    log.info("world built: splits %s", cfg.splits)
