"""A generative model's log P(t|i) for one shard of a retrieval benchmark's galleries (test,
and validation for α*): the shard's whole picture chunks against every query, the model
loaded once; rule score_generative_retrieval_gather joins the shards."""

from vlcomp.io import write_npz
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.pair_jobs import read_galleries
from vlcomp.score.retrieval_files import SPLITS
from vlcomp.score.retrieval_shards import score_retrieval_shard

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    galleries = read_galleries(inp.gallery, inp.queries, inp.test_images, inp.val_images,
                               inp.captions, p.queries, p.gallery_images)
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    arrays = score_retrieval_shard(scorer, galleries, snakemake.wildcards.shard,
                                   batch_size=batch, image_batch=p.image_batch)
    write_npz(arrays, snakemake.output[0])
    log.info("shard %s: chunks %d:%d of %d; %s", snakemake.wildcards.shard,
             arrays["chunks_start"], arrays["chunks_stop"], arrays["chunks_total"],
             ", ".join(f"{s} rows {len(arrays[f'{s}_rows'])} of {len(galleries[s].refs)}"
                       for s in SPLITS))
    log.info(passes.summary())
