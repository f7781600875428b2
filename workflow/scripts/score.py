"""Score matrices S[image, text] for every item of a benchmark."""

import numpy as np
import pandas as pd

from vlcomp.io import write_parquet
from vlcomp.jobs import job_log
from vlcomp.score.embeddings import load_embeddings
from vlcomp.score.matrices import score_items

with job_log(snakemake.log[0]) as log:
    arrays, rows = [], {}
    for npy in snakemake.input.images:
        array, index = load_embeddings(npy, npy.removesuffix(".npy") + ".ids.json")
        rows.update({k: v + sum(len(a) for a in arrays) for k, v in index.items()})
        arrays.append(array)
    text_npy = snakemake.input.texts
    text_emb, text_rows = load_embeddings(text_npy, text_npy.removesuffix(".npy") + ".ids.json")
    items = pd.read_parquet(snakemake.input.benchmark)
    scores = score_items(items, np.concatenate(arrays), rows, text_emb, text_rows)
    write_parquet(scores, snakemake.output[0])
    log.info("%d items scored", len(scores))
