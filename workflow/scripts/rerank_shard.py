"""One shard of a re-ranked retrieval: its block of whole picture chunks, every candidate
pair of those pictures scored by the model's pair score (`vlcomp.score.rerank_shards`)."""

import pandas as pd

from vlcomp.io import read_parquet, write_npz
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.pair_jobs import gallery as gallery_refs
from vlcomp.score.rerank_files import read_candidates
from vlcomp.score.rerank_shards import score_rerank_shard

with job_log(snakemake.log[0]) as log:
    p, inp, shard = snakemake.params, snakemake.input, snakemake.wildcards.shard
    images = pd.concat([read_parquet(path) for path in inp.imagesets], ignore_index=True)
    g = gallery_refs(read_parquet(inp.gallery).image_id, read_parquet(inp.queries), images, None)
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    arrays = score_rerank_shard(scorer, g.refs, g.texts,
                                read_candidates(inp.candidates), shard, kind=p.kind,
                                batch_size=batch, image_batch=p.image_batch)
    write_npz(arrays, snakemake.output[0])
    log.info("shard %s: chunks %d:%d of %d, %d pairs (%s)", shard, arrays["chunks_start"],
             arrays["chunks_stop"], arrays["chunks_total"], len(arrays["values"]), p.kind)
    log.info(passes.summary())
