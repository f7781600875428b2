"""Embed the distinct texts of one benchmark with one model."""

from pathlib import Path

import pandas as pd

from vlcomp.jobs import job_log, set_torch_threads
from vlcomp.models.registry import build_scorer
from vlcomp.score.embeddings import embed_texts, save_embeddings, unique_texts

with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    scorer = build_scorer(snakemake.wildcards.model, snakemake.params.entry,
                          snakemake.params.device)
    texts = unique_texts(pd.read_parquet(snakemake.input.benchmark, columns=["texts"]).texts)
    emb = embed_texts(scorer, texts, batch_size=snakemake.params.batch_size)
    save_embeddings(emb, texts, Path(snakemake.output.npy), Path(snakemake.output.ids))
    log.info("%d texts -> %s", len(texts), emb.shape)
