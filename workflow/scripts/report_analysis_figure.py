"""Paper figures from the tables of a run, as PNG and PDF: ARO Fig. 1 / Table 2 per-relation
bars (``aro_relations``), BiVLC's I2T against T2I per model with CIs (``bivlc_scatter``),
and Hendriksen et al.'s recall drop per text perturbation (``robustness_drops``)."""

import pandas as pd

from vlcomp.jobs import job_log
from vlcomp.report.figures import (
    bar_plot,
    i2t_t2i_scatter,
    relation_bar_values,
    robustness_drop_values,
)
from vlcomp.report.summary import group_intervals

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    table = pd.read_csv(snakemake.input[0])
    if p.figure == "aro_relations":
        values, errors = relation_bar_values(table)
        bar_plot(values, out.png, title="VG-Relation accuracy per relation (ARO Fig. 1 / "
                 "Table 2)", ylabel="accuracy (%)", errors=errors, pdf=out.pdf,
                 figsize=(max(8.0, 0.45 * values.shape[1] + 3), 4.6), rotate=60)
    elif p.figure == "bivlc_scatter":  # a model, or the mean over its seeds, per label
        values = group_intervals(table, pd.read_csv(snakemake.input[1]), p.groups)
        i2t_t2i_scatter(values, {}, out.png, pdf=out.pdf,
                        title="BiVLC: image-to-text against text-to-image (95 % CIs)")
    else:
        drops = robustness_drop_values(table.rename(columns={"Unnamed: 0": "gallery"}))
        values = pd.concat({g: v for g, (v, _) in drops.items()}, axis=1)
        errors = pd.concat({g: e for g, (_, e) in drops.items()}, axis=1)
        if len(drops) == 1:
            values.columns = values.columns.droplevel(0)
            errors.columns = errors.columns.droplevel(0)
        else:
            values.columns = errors.columns = [f"{g}: {c}" for g, c in values.columns]
        bar_plot(values, out.png, title="Relative R@1 drop under text perturbations "
                 "(Hendriksen et al.)", ylabel="R@1 drop (%)", errors=errors, pdf=out.pdf,
                 figsize=(max(8.0, 0.6 * values.shape[1] + 3), 4.6), rotate=30)
    log.info("%s:\n%s", p.figure, values)
