"""SugarCrepe-style negatives of world captions by oracle-verified scene-graph edits."""


from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.world_negatives import world_negatives
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    opts = snakemake.params.options
    split = opts.get("split", "train")
    cfg = WorldConfig.from_dict(snakemake.params.world)
    scenes = read_scenes(snakemake.input.scenes)
    captions = read_parquet(snakemake.input.captions)
    negatives = world_negatives(scenes, captions[captions.split == split], cfg,
                                seed=opts.get("seed", 0))
    write_parquet(negatives, snakemake.output[0])
    log.info("%d negatives for %d of %d %s captions; per subset %s", len(negatives),
             negatives.caption_id.nunique(), int((captions.split == split).sum()), split,
             negatives.subset.value_counts().to_dict())
