"""A CREPE-style productivity set of one negative type from the world's test scenes."""

from vlcomp.data.world import read_scenes
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.config import WorldConfig
from vlcomp.world.productivity import productivity_items

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    cfg = WorldConfig.from_dict(p.world)
    scenes = [s for s in read_scenes(snakemake.input.scenes).values() if s.split == "test"]
    items = productivity_items(scenes, cfg, seed=p.seed, types=[p.negatives],
                               complexities=p.complexities)
    write_parquet(items, snakemake.output[0])
    log.info("%s: %d items from %d test scenes; per complexity %s", p.negatives, len(items),
             len(scenes), items.complexity.value_counts().sort_index().to_dict())
