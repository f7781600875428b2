"""BISON §4.2 on the configured retrieval systems: Kendall's τ between their BISON accuracy
and their text-to-image R@1, with a bootstrap interval over both benchmarks' items
(`vlcomp.metrics.rank_agreement`)."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.rank_agreement import rank_agreement
from vlcomp.metrics.uncertainty import bootstrap_models, bootstrap_outcomes
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import gallery_links
from vlcomp.score.fold_alignment import fold_alignment
from vlcomp.score.gallery_outcomes import gallery_outcomes


def measure(boot, metric):
    """model -> (full-sample value, bootstrap draws) of one metric of a bootstrap."""
    return ({m: boot.draws_value(m, metric) for m in boot.outcomes},
            {m: boot.draws[m, metric] for m in boot.outcomes})


with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    settings = dict(n_resamples=p.resamples, seed=p.seed, confidence=p.confidence,
                    method=p.method)
    items = read_parquet(inp.bison)
    scores = {m: read_parquet(f) for m, f in zip(p.models, inp.scores, strict=True)}
    bison = bootstrap_models("bison", items, scores, benchmark="bison",
                             options=p.bison_options, **settings)
    gallery, queries = read_parquet(inp.gallery), read_parquet(inp.queries)
    alignment = None
    if p.folds:
        alignment = fold_alignment(inp, p.fold_file, gallery, queries,
                                   gallery_links(gallery, queries))
    reranked = dict(zip(p.reranked_models, inp.reranked, strict=True))
    outcomes = gallery_outcomes(gallery, queries, p.models, inp.images, inp.texts, reranked,
                                folds=p.folds, alignment=alignment)
    retrieval = bootstrap_outcomes(outcomes, len(gallery), benchmark=p.retrieval, **settings)
    row = rank_agreement(measure(bison, "accuracy"), measure(retrieval, p.retrieval_metric),
                         p.systems, names=("bison accuracy",
                                           f"{p.retrieval} {p.retrieval_metric}"),
                         confidence=p.confidence)
    write_csv(row, out[0], index=False)
    for label, members in p.systems.items():
        log.info("%s: BISON %.2f, %s %.2f", label,
                 sum(bison.draws_value(m, "accuracy") for m in members) / len(members),
                 p.retrieval_metric,
                 sum(retrieval.draws_value(m, p.retrieval_metric) for m in members)
                 / len(members))
    log.info("\n%s", row.to_string(index=False))
