"""ARO Order items: each caption with its 4 perturbations, for every seed."""

import pandas as pd

from vlcomp.benchmarks.order import order_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    captions = pd.read_parquet(snakemake.input.captions)
    perturbed = {
        int(seed): pd.read_parquet(path)
        for seed, path in zip(snakemake.params.seeds, snakemake.input.perturbed, strict=True)
    }
    items = order_items(perturbed, captions)
    write_parquet(items, snakemake.output[0])
    log.info("%d items over %d seeds", len(items), len(perturbed))
