"""A figure of generated candidates: positive image, the N candidates, the kept one."""


from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.generation import examples_figure

with job_log(snakemake.log[0]) as log:
    instances = read_parquet(snakemake.input.instances)
    candidates = read_parquet(snakemake.input.manifest)
    images = read_parquet(snakemake.input.images)
    # one example per category, in the paper's order, then more of the first ones
    picks = instances.groupby(["type", "subtype"], sort=False).head(1)
    examples_figure(picks, candidates, dict(zip(images.image_id, images.path, strict=True)),
                    snakemake.output[0], n=snakemake.params.n,
                    title="Generated negative images (green: kept by the filter)")
    log.info("%d examples drawn", min(len(picks), snakemake.params.n))
