"""A VL-CheckList-style relation set (true vs false spatial relation) of the world's test scenes."""

from vlcomp.data.world import read_scenes
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.checklist import checklist_items
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    cfg = WorldConfig.from_dict(snakemake.params.world)
    scenes = [s for s in read_scenes(snakemake.input.scenes).values() if s.split == "test"]
    items = checklist_items(scenes, cfg, snakemake.params.seed)
    write_parquet(items, snakemake.output[0])
    log.info("%d items from %d test scenes; per relation %s", len(items), len(scenes),
             items.relation.value_counts().sort_index().to_dict())
