"""SugarCrepe-style hard negative captions written by an LLM (TROHN-Text route), all of them
or one shard's block of whole prompt chunks."""


from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.llm_negatives import SUBSETS, HFTextGenerator, llm_negatives

with job_log(snakemake.log[0]) as log:
    opts = snakemake.params.options
    captions = read_parquet(snakemake.input.captions)
    captions = captions[captions.split == opts.get("split", "train")]
    llm = opts["llm"]  # keys checked by config/schema.yaml: HFTextGenerator's arguments
    generator = HFTextGenerator(**{"device": snakemake.params.device, **llm})
    log.info("%d captions, model %s on %s (%s)", len(captions), llm["model"],
             generator.device, llm.get("dtype", "float32"))
    shard = getattr(snakemake.wildcards, "shard", None)  # rule sugarcrepe_negatives_shard
    negatives = llm_negatives(captions[["caption_id", "image_id", "text"]], generator,
                              seed=opts.get("seed", 0), shard=shard)
    write_parquet(negatives, snakemake.output[0])
    counts = negatives.subset.value_counts()
    for subset in SUBSETS:
        log.info("%s: %d negatives (%.1f%% of captions)", subset, counts.get(subset, 0),
                 100 * counts.get(subset, 0) / max(len(captions), 1))
    log.info("%d negatives for %d of %d captions", len(negatives),
             negatives.caption_id.nunique(), len(captions))
