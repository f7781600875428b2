"""Accuracy over α of a generative model on a choice benchmark (score_α = log P(t|i) −
α log P(t)): the curve, α at 0 and 1, the oracle α* and the validation-split α*."""

from vlcomp.io import atomic_path, read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.alpha_curves import alpha_curve

with job_log(snakemake.log[0]) as log:
    items = read_parquet(snakemake.input.benchmark)
    scores = read_parquet(snakemake.input.scores)
    merged = items.merge(scores[["item_id", "scores"]], on="item_id", how="inner",
                         validate="one_to_one")
    if len(merged) != len(items):
        raise ValueError(f"{snakemake.input.scores}: scores for {len(merged)} of "
                         f"{len(items)} items")
    prior_table = read_parquet(snakemake.input.prior)
    p = snakemake.params
    column = f"log_prior_{p.prior}"
    if column not in prior_table:
        raise ValueError(f"{snakemake.input.prior}: no column {column!r} "
                         f"(config.visualgptscore.alpha_prior: {p.prior!r})")
    prior = dict(zip(prior_table.text, prior_table[column], strict=True))
    others = {c.removeprefix("log_prior_"): dict(zip(prior_table.text, prior_table[c],
                                                     strict=True))
              for c in prior_table.columns if c.startswith("log_prior_") and c != column}
    curve, summary = alpha_curve(merged, prior, metric=p.kind, options=p.options,
                                 step=p.step, seed=p.seed, repeats=p.repeats,
                                 other_priors=others)
    summary.update(model=snakemake.wildcards.model, benchmark=snakemake.wildcards.benchmark,
                   prior="null images" if p.prior == "null" else "training images")
    with atomic_path(snakemake.output.csv) as tmp:
        curve.to_csv(tmp, index=False, float_format="%.4f")
    write_json(summary, snakemake.output.json)
    log.info("alpha 0: %.2f, alpha 1: %.2f, oracle alpha* %.3f: %.2f; validation alpha* "
             "%.3f ± %.3f", summary["accuracy_alpha0"], summary["accuracy_alpha1"],
             summary["oracle"]["alpha"], summary["oracle"]["accuracy"],
             summary["validation"]["summary"]["alpha"]["mean"],
             summary["validation"]["summary"]["alpha"]["std"])
