"""Accuracy over α of a generative model on a choice benchmark (score_α = log P(t|i) −
α log P(t)): the curve, α at 0 and 1, the oracle α* and the validation-split α*."""

from vlcomp.io import atomic_path, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.alpha_curves import alpha_curve, read_alpha_inputs

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    merged, prior, others = read_alpha_inputs(snakemake.input.benchmark, snakemake.input.scores,
                                              snakemake.input.prior, p.prior)
    curve, summary = alpha_curve(merged, prior, metric=p.kind, options=p.options,
                                 step=p.step, seed=p.seed, repeats=p.repeats,
                                 other_priors=others)
    summary.update(model=snakemake.wildcards.model, benchmark=snakemake.wildcards.benchmark,
                   prior={"null": "null images", "train": "training images"}.get(
                       p.prior, f"text-only LM ({p.prior.removeprefix('llm_')})"))
    with atomic_path(snakemake.output.csv) as tmp:
        curve.to_csv(tmp, index=False, float_format="%.4f")
    write_json(summary, snakemake.output.json)
    log.info("alpha 0: %.2f, alpha 1: %.2f, oracle alpha* %.3f: %.2f; validation alpha* "
             "%.3f ± %.3f", summary["accuracy_alpha0"], summary["accuracy_alpha1"],
             summary["oracle"]["alpha"], summary["oracle"]["accuracy"],
             summary["validation"]["summary"]["alpha"]["mean"],
             summary["validation"]["summary"]["alpha"]["std"])
