"""Paper figures from the uncertainty tables of a run, as PNG and PDF, every bar or point
with its 95 % bootstrap CI: ARO Fig. 1 / Table 2 per-relation bars (``aro_relations``),
BiVLC's I2T against T2I per model (``bivlc_scatter``), and Hendriksen et al.'s recall drop
per text perturbation (``robustness_drops``)."""

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.figures import (
    bar_plot,
    drop_intervals,
    i2t_t2i_scatter,
    panel_bar_plot,
    relation_intervals,
)
from vlcomp.report.intervals import group_intervals
from vlcomp.report.robustness import interval_cells

with job_log(snakemake.log[0]) as log:
    p, out, inp = snakemake.params, snakemake.output, snakemake.input
    table = pd.read_csv(inp[0])
    if p.figure == "aro_relations":  # a model, or the mean over its seeds, per label
        values, low, high = relation_intervals(group_intervals(table, pd.read_csv(inp[1]),
                                                               p.groups))
        bar_plot(values, out.png, title="VG-Relation accuracy per relation, 95 % CIs (ARO "
                 "Fig. 1 / Table 2)", ylabel="accuracy (%)", bounds=(low, high), pdf=out.pdf,
                 figsize=(max(8.0, 0.45 * values.shape[1] + 3), 4.6), rotate=60)
    elif p.figure == "bivlc_scatter":
        values = group_intervals(table, pd.read_csv(inp[1]), p.groups)
        i2t_t2i_scatter(values, {}, out.png, pdf=out.pdf,
                        title="BiVLC: image-to-text against text-to-image (95 % CIs)")
    else:  # one panel per gallery, perturbations in the table's order
        drops = drop_intervals(interval_cells(table, p.groups))
        panel_bar_plot(drops, out.png, title="Relative R@1 drop under text perturbations, "
                       "95 % CIs (Hendriksen et al.)", ylabel="R@1 drop (%)", pdf=out.pdf)
        values = pd.concat({g: bars[0] for g, bars in drops.items()}, axis=1)
    log.info("%s:\n%s", p.figure, values)
