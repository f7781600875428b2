"""BISON section 6: captioning metrics as BISON systems (the query scored as a caption of each
candidate against its COCO references; the higher-scoring image is picked), each accuracy
with its bootstrap CI over the BISON items (the resamples of BISON's own intervals)."""

from pathlib import Path

import numpy as np
import pandas as pd

from vlcomp.data.coco_references import coco_references
from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.captioning import caption_score_accuracy
from vlcomp.metrics.uncertainty import ratio_intervals
from vlcomp.report.tables import write_csv, write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    items = read_parquet(snakemake.input.bison)
    captions = coco_references(Path(snakemake.input.annotations) / "annotations"
                               / "captions_val2014.json")
    result, outcomes = caption_score_accuracy(items, captions, metrics=p.metrics, seed=p.seed,
                                              n_negative_refs=p.n_negative_refs,
                                              tie_policy=p.tie_policy,
                                              spice_dir=snakemake.input.get("spice") or None)
    ones = np.ones(len(outcomes))
    intervals = ratio_intervals({m: (outcomes[m].to_numpy(np.float64), ones)
                                 for m in outcomes.columns}, len(outcomes), benchmark="bison",
                                n_resamples=p.resamples, seed=p.bootstrap_seed,
                                confidence=p.confidence, method=p.method)
    write_json(result, snakemake.output.json)
    write_csv(intervals, snakemake.output.intervals, index=False)
    table = pd.DataFrame({"Accuracy": result["overall"], "ties": result["ties"]},
                         index=pd.Index(list(result["overall"]), name="metric"))
    notes = [f"{metric}: {reason}" for metric, reason in result["unavailable"].items()]
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=notes)
    log.info("%d BISON items, ties %s: %s%s\n%s", result["n_items"], p.tie_policy,
             result["overall"], f"; unavailable: {notes}" if notes else "",
             intervals.to_string())
