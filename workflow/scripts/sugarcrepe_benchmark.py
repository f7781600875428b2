"""SugarCrepe-style items (7 subsets) from scene-graph edits of the test scenes."""


from vlcomp.benchmarks.sugarcrepe import sugarcrepe_items
from vlcomp.data.world import read_scenes
from vlcomp.io import atomic_path, read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    cfg = WorldConfig.from_dict(snakemake.params.world)
    scenes = {k: s for k, s in read_scenes(snakemake.input.scenes).items() if s.split == "test"}
    captions = read_parquet(snakemake.input.captions)
    items, edited = sugarcrepe_items(scenes, captions[captions.split == "test"], cfg,
                                     snakemake.params.seed)
    write_parquet(items, snakemake.output.sugarcrepe)
    with atomic_path(snakemake.output.negative_scenes) as tmp:
        tmp.write_text("".join(s.to_json() + "\n" for s in edited))
    log.info("items per subset: %s", items.subset.value_counts().sort_index().to_dict())
