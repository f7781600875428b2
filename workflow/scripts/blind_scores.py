"""Blind baseline scores of every blind choice benchmark: a Kneser-Ney bigram model of the
training captions (``kind: ngram``, fitted once), or a captioner's text prior
log P(t|null) of each benchmark (``kind: prior``)."""

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.score.blind import blind_item_scores
from vlcomp.text.ngram import BigramLM

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    model = None
    if p.kind == "ngram":
        captions = read_parquet(inp.sources[0])
        model = BigramLM(captions[captions.split == "train"].text.astype(str),
                         discount=p.discount)
        log.info("bigram model of %d training captions (%d bigram types)", model.sentences,
                 model.types)
    for i, benchmark in enumerate(p.benchmarks):
        items = read_parquet(inp.benchmarks[i])
        texts = sorted({t for options in items.texts for t in options})
        if model is not None:
            scores = dict(zip(texts, model.score(texts), strict=True))
        else:
            prior = read_parquet(inp.sources[i])
            scores = dict(zip(prior.text, prior.log_prior_null, strict=True))
            log.info("%s: text prior log P(t|null) of %s", benchmark, inp.sources[i])
        write_parquet(blind_item_scores(items, scores), snakemake.output[i])
        log.info("%s: %d items, %d texts scored blind", benchmark, len(items), len(texts))
