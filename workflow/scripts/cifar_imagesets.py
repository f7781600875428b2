"""CIFAR-10/100's released pickles, read in their .tar.gz, as PNG files and one image set per
split (image_id, path, label, split, filename)."""

from vlcomp.benchmarks.classification_sets import split_imagesets
from vlcomp.data.classification import materialise_cifar
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    dataset = snakemake.wildcards.cls_dataset
    table = materialise_cifar(snakemake.input.archive, dataset, snakemake.output.images,
                              expect_sizes=snakemake.params.check_sizes)
    for split, rows in split_imagesets(table, dataset).items():
        write_parquet(rows, getattr(snakemake.output, split))
        log.info("%s %s: %d images, %d classes", dataset, split, len(rows),
                 rows.label.nunique())
