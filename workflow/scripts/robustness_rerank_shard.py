"""One shard of a model's robustness re-ranking: its block of whole conditions, every
candidate pair of each scored by the model's pair score (`vlcomp.score.robustness_rerank`)."""

from functools import cache

from vlcomp.io import read_parquet, write_npz
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.pairs import image_index
from vlcomp.score.rerank_shards import score_condition_block
from vlcomp.score.robustness_rerank import (
    condition_block,
    condition_sources,
    condition_weights,
    read_condition,
    read_galleries,
)

with job_log(snakemake.log[0]) as log:
    p, inp, shard = snakemake.params, snakemake.input, snakemake.wildcards.shard
    tables = dict(zip(p.imagesets, inp.imagesets, strict=True))

    @cache
    def index(imageset):
        return {str(k): v for k, v in image_index([read_parquet(tables[imageset])]).items()}

    def refs_of(imageset, image_ids):
        found = index(imageset)
        return [found[str(i)] for i in image_ids]

    keys, weights = condition_weights(inp.candidates)
    block = condition_block(weights, shard)
    mine = keys[block]
    files = {"galleries": inp.galleries, "queries": inp.queries, "t2i_extra": inp.t2i_extra}
    sources = {}
    for gallery in read_galleries(p.galleries, files, read_parquet(inp.perturbed),
                                  p.perturbed_galleries, p.image_conditions,
                                  p.gallery_imagesets, p.k_test, p.text_perturbations):
        if any(k.startswith(f"{gallery.name}.") for k in mine):
            sources |= condition_sources(gallery, refs_of)
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    arrays = score_condition_block(
        scorer, mine, lambda key: (read_condition(inp.candidates, key), *sources[key]),
        kind=p.kind, batch_size=batch, image_batch=p.image_batch, say=log.info)
    write_npz(arrays, snakemake.output[0])
    log.info("shard %s: conditions %d:%d of %d (%s)", shard, block.start, block.stop,
             len(keys), p.kind)
    log.info(passes.summary())
