"""CREPE's productivity items of one negative type (its released CSVs) on Visual Genome crops."""

from vlcomp.data.crepe import crepe_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    items, crops = crepe_items(snakemake.input.release, snakemake.input.images,
                               types=[p.negatives], complexities=p.complexities,
                               tie_policy=p.tie_policy)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(crops, snakemake.output.imageset)
    log.info("%s: %d items on %d crops; per complexity %s", p.negatives, len(items), len(crops),
             items.complexity.value_counts().sort_index().to_dict())
