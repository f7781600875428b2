"""World test retrieval: the test images as gallery, each image's finest caption as query."""

import pandas as pd

from vlcomp.benchmarks.retrieval import finest_caption_queries
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    gallery = pd.read_parquet(snakemake.input.gallery)[["image_id"]]
    captions = pd.read_parquet(snakemake.input.captions)
    queries = finest_caption_queries(captions[captions.split == "test"],
                                     gallery.image_id.tolist())
    write_parquet(gallery, snakemake.output.gallery)
    write_parquet(queries, snakemake.output.queries)
    log.info("%d gallery images, %d queries", len(gallery), len(queries))
