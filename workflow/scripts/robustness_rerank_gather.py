"""Join a model's robustness re-ranking shards: each condition's candidates and their
re-ranked scores, both directions (`vlcomp.score.robustness_rerank`)."""

from vlcomp.io import write_npz
from vlcomp.jobs import job_log
from vlcomp.score.robustness_rerank import gather_shards

with job_log(snakemake.log[0]) as log:
    inp = snakemake.input
    arrays = gather_shards(inp.shards, inp.candidates)
    write_npz(arrays, snakemake.output[0])
    log.info("%d shards joined: %d conditions", len(inp.shards), len(arrays["keys"]))
