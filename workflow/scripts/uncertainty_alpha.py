"""Bootstrap CIs of every number of a generative model's α record on one benchmark
(VisualGPTScore Tables 2 and 4; `vlcomp.metrics.alpha_uncertainty`)."""

import numpy as np

from vlcomp.jobs import job_log
from vlcomp.metrics.alpha_curves import read_alpha_inputs
from vlcomp.metrics.alpha_uncertainty import alpha_intervals, retrieval_alpha_intervals
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, inp, wc = snakemake.params, snakemake.input, snakemake.wildcards
    boot = {"n_resamples": p.resamples, "bootstrap_seed": p.bootstrap_seed,
            "confidence": p.confidence, "method": p.method}
    if p.retrieval:
        null = None
        if hasattr(inp, "null"):  # Table 6's "Null Images" prior of the queries
            with np.load(inp.null) as saved:
                null = (saved["test"], saved["val"])
        with np.load(inp.scores) as saved:
            table = retrieval_alpha_intervals(saved["test"], saved["test_links"], saved["val"],
                                              saved["val_links"], benchmark=wc.benchmark,
                                              step=p.step, null_priors=null, **boot)
    else:
        items, prior, others = read_alpha_inputs(inp.benchmark, inp.scores, inp.prior, p.prior)
        table = alpha_intervals(items, prior, metric=p.kind, benchmark=wc.benchmark,
                                options=p.options, step=p.step, seed=p.seed,
                                repeats=p.repeats, other_priors=others, **boot)
    write_csv(table.assign(model=wc.model, benchmark=wc.benchmark), snakemake.output[0],
              index=False)
    log.info("%s on %s: %d numbers, %d resamples (seed %d, %s)\n%s", wc.model, wc.benchmark,
             len(table), p.resamples, p.bootstrap_seed, p.method, table.to_string())
