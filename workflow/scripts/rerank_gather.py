"""Join a re-ranked retrieval's shards into its score file: each query's candidates and their
re-ranked scores, both directions (`vlcomp.score.rerank_files`)."""

import numpy as np

from vlcomp.io import write_npz
from vlcomp.jobs import job_log
from vlcomp.score.rerank_files import join_rerank_shards, read_candidates, reranked_arrays

with job_log(snakemake.log[0]) as log:
    inp = snakemake.input
    candidates = read_candidates(inp.candidates)
    values = join_rerank_shards(inp.shards, candidates)
    with np.load(inp.candidates) as f:
        k_test = int(f["k_test"])
        ids = {"image_ids": f["image_ids"].tolist(), "query_ids": f["query_ids"].tolist()}
    write_npz(reranked_arrays(candidates, values, k_test, ids), snakemake.output[0])
    log.info("%d shards joined: %d pairs, k_test %d", len(inp.shards), len(values), k_test)
