"""One model's Winoground scores per Diwan et al. tag (VisualGPTScore Table 13); for a
captioner also each tag's own oracle alpha* and the scores at it; and every one of these
numbers' bootstrap CI."""

from vlcomp.data.winoground_tags import add_diwan_tags, read_tag_assignments
from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.alpha_curves import with_scores
from vlcomp.metrics.eqben import winoground_tag_metrics
from vlcomp.metrics.tag_uncertainty import tag_intervals
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    items = add_diwan_tags(read_parquet(inp.winoground), read_tag_assignments(inp.tags),
                           exclude=p.exclude)
    merged = with_scores(items, inp.scores)
    prior, prior_path = None, getattr(inp, "prior", None)
    if prior_path:
        table = read_parquet(prior_path)
        column = f"log_prior_{p.prior}"
        if column not in table:
            raise ValueError(f"{prior_path}: no column {column!r}")
        prior = dict(zip(table.text, table[column], strict=True))
    record = winoground_tag_metrics(merged, prior, step=p.step, benchmark="winoground")
    record["model"] = snakemake.wildcards.model
    intervals = tag_intervals(merged, prior, step=p.step, n_resamples=p.resamples,
                              bootstrap_seed=p.bootstrap_seed, confidence=p.confidence,
                              method=p.method)
    write_json(record, snakemake.output.metrics)
    write_csv(intervals, snakemake.output.intervals, index=False)
    log.info("%s\n%s", {tag: (s["n"], s["I2T"], s["T2I"], s["Group"])
                        for tag, s in record["subsets"].items()}, intervals.to_string())
