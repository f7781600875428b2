"""Blind baseline scores of a choice benchmark: a Kneser-Ney bigram model of the training
captions (``kind: ngram``), or a captioner's text prior log P(t|null) (``kind: prior``)."""

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.score.blind import blind_item_scores
from vlcomp.text.ngram import BigramLM

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    items = read_parquet(inp.benchmark)
    texts = sorted({t for options in items.texts for t in options})
    if p.kind == "ngram":
        captions = read_parquet(inp.source)
        train = captions[captions.split == "train"].text.astype(str)
        model = BigramLM(train, discount=p.discount)
        scores = dict(zip(texts, model.score(texts), strict=True))
        log.info("bigram model of %d training captions (%d bigram types)", model.sentences,
                 model.types)
    else:
        prior = read_parquet(inp.source)
        scores = dict(zip(prior.text, prior.log_prior_null, strict=True))
        log.info("text prior log P(t|null) of %s", inp.source)
    write_parquet(blind_item_scores(items, scores), snakemake.output[0])
    log.info("%d items, %d texts scored blind", len(items), len(texts))
