"""ARO VG-Relation / VG-Attribution items and their union-box crops."""

from pathlib import Path

from vlcomp.benchmarks.aro_vg import attribution_items, relation_items, write_crops
from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    cfg = WorldConfig.from_dict(snakemake.params.world)
    scenes = [s for s in read_scenes(snakemake.input.scenes).values() if s.split == "test"]
    images = read_parquet(snakemake.input.images)
    out = snakemake.output
    crops = write_crops(scenes, images, Path(out.crops))
    relation = relation_items(scenes, cfg, snakemake.params.relation_seed)
    attribution = attribution_items(scenes, cfg, snakemake.params.attribution_seed)
    write_parquet(crops, out.imageset)
    write_parquet(relation, out.relation)
    write_parquet(attribution, out.attribution)
    log.info("%d crops, %d relation items, %d attribution items",
             len(crops), len(relation), len(attribution))
