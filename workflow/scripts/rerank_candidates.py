"""Each query's k_test re-ranking candidates by the embedding cosine, both directions
(`vlcomp.metrics.rerank`), for one cross-encoder on one retrieval benchmark."""

import numpy as np

from vlcomp.io import read_parquet, write_npz
from vlcomp.jobs import job_log
from vlcomp.metrics.rerank import candidate_pairs, select_candidates
from vlcomp.models.xvlm_k_test import check_k_test
from vlcomp.score.embeddings import gallery_embeddings

with job_log(snakemake.log[0]) as log:
    inp, k = snakemake.input, snakemake.params.k_test
    if inp.model_yaml:  # X-VLM ranks with its YAML's k_test, as ARO's wrapper
        check_k_test(snakemake.wildcards.model, k, inp.model_yaml[0])
    gallery, queries = read_parquet(inp.gallery), read_parquet(inp.queries)
    images, texts, _ = gallery_embeddings(gallery, queries, inp.images, inp.texts)
    candidates = select_candidates(images, texts, k)
    write_npz({"i2t": candidates.i2t, "t2i": candidates.t2i, "k_test": np.int64(k),
               "image_ids": np.array(list(gallery.image_id)),
               "query_ids": np.array(list(queries.query_id))}, snakemake.output[0])
    log.info("k_test %d: %d images x %d, %d texts x %d; %d distinct pairs to score", k,
             *candidates.i2t.shape, *candidates.t2i.shape, len(candidate_pairs(candidates)))
