"""Embed the text queries of one retrieval benchmark with one model."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log, set_torch_threads
from vlcomp.models.registry import build_scorer
from vlcomp.score.embeddings import embed_texts, save_embeddings

with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    scorer = build_scorer(snakemake.wildcards.model, snakemake.params.entry,
                          snakemake.params.device)
    queries = pd.read_parquet(snakemake.input.queries)
    emb = embed_texts(scorer, queries.text.tolist(), batch_size=snakemake.params.batch_size)
    save_embeddings(emb, queries.query_id.tolist(), Path(snakemake.output.npy),
                    Path(snakemake.output.ids))
    log.info("%d queries -> %s", len(queries), emb.shape)
