"""Join a generative model's retrieval shards into the benchmark's score file, as the
unsharded job (score_pair_model.py) writes it."""

from vlcomp.io import write_npz
from vlcomp.jobs import job_log
from vlcomp.score.pair_jobs import read_galleries
from vlcomp.score.retrieval_files import join_retrieval_shards, retrieval_arrays

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    galleries = read_galleries(inp.gallery, inp.queries, inp.test_images, inp.val_images,
                               inp.captions, p.queries, p.gallery_images)
    matrices = join_retrieval_shards(inp.shards, galleries)
    write_npz(retrieval_arrays(galleries, matrices), snakemake.output[0])
    log.info("%d shards joined: %s", len(inp.shards),
             {s: m.shape for s, m in matrices.items()})
