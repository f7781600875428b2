"""K nearest-neighbour images by embedding cosine (NegCLIP's hard images)."""

from vlcomp.image.neighbours import neighbour_table
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log
from vlcomp.score.embeddings import load_embeddings

with job_log(snakemake.log[0]) as log:
    emb, rows = load_embeddings(snakemake.input.npy, snakemake.input.ids)
    ids = sorted(rows, key=rows.get)
    table = neighbour_table(ids, emb, int(snakemake.wildcards.k))
    write_parquet(table, snakemake.output[0])
    log.info("%d images, k=%s", len(table), snakemake.wildcards.k)
