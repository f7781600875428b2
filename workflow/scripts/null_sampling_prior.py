"""VisualGPTScore appendix Table 5: a captioner's log P(t) of every text of a pair benchmark
from n Gaussian null images (and from n sampled training images), for each count and
sampling seed (`vlcomp.score.text_prior.null_sampling_priors`, `train_sampling_priors`)."""

import pandas as pd

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.score.text_prior import null_sampling_priors, train_sampling_priors

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    items = read_parquet(inp.benchmark)
    texts = list(dict.fromkeys(t for row in items["texts"] for t in row))
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    priors = {}
    if "null" in p.sources:
        priors |= null_sampling_priors(scorer, texts, p.null, p.counts, p.seeds, batch,
                                       p.image_batch)
    if "train" in p.sources:
        priors |= train_sampling_priors(scorer, texts, read_parquet(inp.train_images),
                                        p.counts, p.seeds, batch, p.image_batch)
    write_parquet(pd.DataFrame({"text": texts, **priors}), snakemake.output[0])
    log.info("%d texts; seeds %s; %s images %s", len(texts), p.seeds, " and ".join(p.sources),
             p.counts)
