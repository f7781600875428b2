"""Retrieval with a captioner's log P(t|i) (VisualGPTScore Table 4) from the test and
validation galleries' score matrices (score_pair_model.py): α* picked on validation,
image->text R@K at α = 0, 1, α*, text->image R@K raw."""

import numpy as np

from vlcomp.io import write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.generative_retrieval import generative_retrieval
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    null, n_null = None, 0
    if hasattr(snakemake.input, "null"):  # Table 6's "Null Images" prior of the queries
        with np.load(snakemake.input.null) as saved:
            null, n_null = (saved["test"], saved["val"]), int(saved["n_images"])
    with np.load(snakemake.input.scores) as saved:
        curve, record = generative_retrieval(saved["test"], saved["test_links"], saved["val"],
                                             saved["val_links"], step=snakemake.params.step,
                                             null_priors=null, null_images=n_null)
    record |= {"benchmark": snakemake.wildcards.benchmark, "model": snakemake.wildcards.model}
    write_csv(curve.set_index("alpha"), snakemake.output.csv)
    write_json(record, snakemake.output.json)
    log.info("raw: %s; alpha=1: %s; alpha*val %s; null images: %s", record["overall"],
             record["alpha1"], record["alpha_val"], record.get("null"))
