"""NegCLIP hard negative captions for the captions of one split."""


from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.negclip import load_negclip_nlp, negatives_for_captions

with job_log(snakemake.log[0]) as log:
    opts = snakemake.params.options
    captions = read_parquet(snakemake.input.captions)
    captions = captions[captions.split == opts.get("split", "train")]
    negatives = negatives_for_captions(
        captions[["caption_id", "text"]], load_negclip_nlp(snakemake.params.spacy_model),
        seed=opts.get("seed", 0), max_negatives=opts.get("max_negatives", 5),
    )
    write_parquet(negatives, snakemake.output[0])
    has = negatives.negatives.map(len)
    log.info("%d captions, %.1f%% with a negative, %.2f negatives on average",
             len(negatives), 100 * (has > 0).mean(), has.mean())
