"""The images of a dataset's image folder outside its test split (image_id, path): what a
robustness gallery with ``t2i_gallery: folder`` ranks besides the test images."""

from vlcomp.data.datasets import folder_extra_images
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    images = read_parquet(snakemake.input[0])
    extra = folder_extra_images(images)
    write_parquet(extra, snakemake.output[0])
    log.info("%d images outside the test split in the test images' folder(s) (%d test images, "
             "%d in the dataset)", len(extra), int((images.split == "test").sum()), len(images))
