"""VisualGPTScore tables (Table 2: prior-only, P(t|i), PMI; Table 4: α*, with retrieval, and
the ITM models' held-out accuracy and retrieval beside them) and
the α-curve figure (Table 3) from the α-curve records of every generative model, and every
cell's bootstrap interval beside them (``table{2,4}_ci.csv``, and ``.md`` in the tables'
layout)."""

import json
from pathlib import Path

import pandas as pd

from vlcomp.io import atomic_path
from vlcomp.jobs import job_log
from vlcomp.report.intervals import CellIntervals
from vlcomp.report.ranking_notes import ranking_notes
from vlcomp.report.table_ci import interval_markdown, interval_table
from vlcomp.report.tables import write_csv, write_table
from vlcomp.report.visualgptscore import (
    alpha_curves_figure,
    alpha_table,
    interval_tables,
    prior_table,
)

with job_log(snakemake.log[0]) as log:
    records, curves, retrieval = {}, {}, {}
    for json_path, csv_path in zip(snakemake.input.json, snakemake.input.csv, strict=True):
        record = json.loads(Path(json_path).read_text())
        records.setdefault(record["model"], {})[record["benchmark"]] = record
        curves[(record["model"], record["benchmark"])] = pd.read_csv(csv_path)
    for json_path in snakemake.input.retrieval:
        record = json.loads(Path(json_path).read_text())
        retrieval.setdefault(record["model"], {})[record["benchmark"]] = record
    itm, itm_retrieval = {}, {}
    for json_path in snakemake.input.itm:
        record = json.loads(Path(json_path).read_text())
        itm.setdefault(record["model"], {})[record["benchmark"]] = record
    for json_path in snakemake.input.itm_retrieval:
        record = json.loads(Path(json_path).read_text())
        itm_retrieval.setdefault(record["model"], {})[record["benchmark"]] = record
    labels = snakemake.params.labels
    out = snakemake.output
    names = snakemake.params.names
    llms = snakemake.params.llms
    table2 = prior_table(records, labels, names, llms)
    write_table(table2, Path(out.table2_csv).with_suffix(""))
    table4 = alpha_table(records, labels, names, retrieval, itm, itm_retrieval)
    # the ITMScore rows' retrieval: re-ranked by ITM where the model does (BLIP's protocol)
    write_table(table4, Path(out.table4_csv).with_suffix(""),
                notes=ranking_notes(itm_retrieval))
    intervals = {}
    for path in snakemake.input.intervals:
        table = pd.read_csv(path)
        intervals[table.model.iloc[0], table.benchmark.iloc[0]] = table
    shown = {"table2": table2, "table4": table4}
    cis = interval_tables(records, retrieval, intervals, labels, names, llms)
    for name, frame in cis.items():
        write_csv(frame, out[f"{name}_ci"], index=False)
        key = f"visualgptscore/{name}"
        cells = CellIntervals.from_frame(key, frame)
        with atomic_path(Path(out[f"{name}_ci_md"])) as tmp:
            tmp.write_text(interval_markdown(shown[name], interval_table(key, shown[name], cells),
                                             snakemake.params.confidence), encoding="utf-8")
    alpha_curves_figure(curves, records, labels, out.figure,
                        title="Accuracy against α: log P(t|i) − α log P(t) (VisualGPTScore)",
                        names=names, pdf=out.figure_pdf)
    log.info("\n%s\n\n%s", table2, table4)
