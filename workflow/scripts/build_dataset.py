"""The common tables of one real caption dataset (Karpathy splits, optionally FG captions)."""

from vlcomp.data.datasets import build_caption_dataset, image_roots
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    name, spec = snakemake.wildcards.dataset, snakemake.params.spec
    fg = snakemake.input.fg[0] if spec.get("fg") else None
    images, captions = build_caption_dataset(
        name, spec, snakemake.input.splits, image_roots(name, spec), fg)
    write_parquet(images, snakemake.output.images)
    write_parquet(captions, snakemake.output.captions)
    log.info("%s: %s images, %d captions%s", name,
             images.split.value_counts().to_dict(), len(captions), " (FG test captions)" * bool(fg))
