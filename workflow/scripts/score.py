"""Score matrices S[image, text] for every item of a benchmark."""

import pandas as pd

from vlcomp.io import write_parquet
from vlcomp.jobs import job_log
from vlcomp.score.embeddings import load_stacked_embeddings
from vlcomp.score.matrices import score_items

with job_log(snakemake.log[0]) as log:
    image_emb, image_rows = load_stacked_embeddings(snakemake.input.images)
    text_emb, text_rows = load_stacked_embeddings([snakemake.input.texts])
    items = pd.read_parquet(snakemake.input.benchmark)
    scores = score_items(items, image_emb, image_rows, text_emb, text_rows)
    write_parquet(scores, snakemake.output[0])
    log.info("%d items scored", len(scores))
