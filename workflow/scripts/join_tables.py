"""Join shard tables (Parquet) in shard order into the one table an unsharded job writes."""

import pandas as pd

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    parts = [read_parquet(path) for path in snakemake.input]
    joined = pd.concat(parts, ignore_index=True)
    write_parquet(joined, snakemake.output[0])
    log.info("%d shards joined: %d rows (%s)", len(parts), len(joined),
             ", ".join(str(len(p)) for p in parts))
