"""ARO Order items: each caption with its 4 perturbations, for every seed."""


from vlcomp.benchmarks.order import order_items
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    captions = read_parquet(snakemake.input.captions)
    perturbed = {
        int(seed): read_parquet(path)
        for seed, path in zip(snakemake.params.seeds, snakemake.input.perturbed, strict=True)
    }
    items = order_items(perturbed, captions)
    write_parquet(items, snakemake.output[0])
    log.info("%d items over %d seeds", len(items), len(perturbed))
