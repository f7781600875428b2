"""BiVLC-style 2×2 items from SugarCrepe-style items and their negative images."""

import pandas as pd

from vlcomp.benchmarks.bivlc import bivlc_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    items = bivlc_items(pd.read_parquet(snakemake.input.sugarcrepe),
                        pd.read_parquet(snakemake.input.manifest))
    write_parquet(items, snakemake.output[0])
    log.info("items per type: %s", items.type.value_counts().sort_index().to_dict())
