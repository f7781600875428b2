"""The papers' reported numbers (``published.yaml``) beside the reproduced ones."""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd
import yaml

COLUMNS = ["row", "ours", "column", "published", "reproduced", "difference", "source", "note"]
# Reproduced table (``results/tables/{key}.csv``) -> the paper and published tables it is
# compared with (``results/tables/{key}_vs_published.*``).
COMPARED = {
    "aro/aro": ("aro", ["aro"]),
    "aro/table2": ("aro", ["table2"]),
    "aro/table6": ("aro", ["table6"]),
    "robustness/aro_table3": ("aro", ["table3"]),
    "robustness/aro_table4": ("aro", ["table4"]),
    "bivlc/table2": ("bivlc", ["table2"]),
    "bivlc/table3": ("bivlc", ["table3"]),
    "bivlc/table4": ("bivlc", ["table4"]),
    "bivlc/table6": ("bivlc", ["table6"]),
    "bison/bison": ("bison", ["table3", "table4"]),
    "bison/section6": ("bison", ["section6"]),
    "sugarcrepe/sugarcrepe": ("sugarcrepe", ["sugarcrepe"]),
    "visualgptscore/table1": ("visualgptscore", ["table1"]),
    "visualgptscore/table2": ("visualgptscore", ["table2a", "table2b"]),
    "visualgptscore/table4": ("visualgptscore", ["table4a"]),
    # the appendix: BLIP-2 on ARO / Crepe / VL-CheckList; text, image and group scores of BLIP
    # and BLIP-2 on Winoground / EqBen (Table 12's BLIP rows are Table 11's, with groups);
    # Winoground per Diwan tag
    "visualgptscore/table10": ("visualgptscore", ["table10"]),
    "visualgptscore/table11": ("visualgptscore", ["table11", "table12"]),
    "visualgptscore/table13": ("visualgptscore", ["table13"]),
}
# The world's tables name ARO's order and retrieval tasks without a dataset: they stand for
# the COCO ones (the world's captions are COCO-like), as the paper configuration labels them;
# the world's Winoground-style set stands for Winoground.
WORLD_ALIASES = {
    "COCO-Order": "Order",
    "COCO-Order std": "Order std",
    "COCO Retrieval I2T R@1": "Retrieval I2T R@1",
    "COCO Retrieval T2I R@1": "Retrieval T2I R@1",
    **{f"Winoground {m}": f"Winoground-style {m}"
       for m in ("Text Score", "Text Score std", "Image Score", "alpha*", "alpha* std")},
    **{f"COCO {m}": f"Retrieval {m}" for m in ("I2T R@1", "I2T R@5", "alpha*")},
}


def load_published(
    paper: str | None = None, table: str | Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Records ``{paper, table, rows: {row: value}, column, source}``, optionally filtered by
    paper and by one table id or several (e.g. BISON's ``["table3", "table4"]``)."""
    tables = {table} if isinstance(table, str) else None if table is None else set(table)
    return [copy.deepcopy(r) for r in _records()
            if (paper is None or r["paper"] == paper) and (tables is None or r["table"] in tables)]


@functools.cache
def _records() -> tuple[dict[str, Any], ...]:
    """``published.yaml`` parsed once (libyaml's safe loader where installed)."""
    text = resources.files("vlcomp.report").joinpath("published.yaml").read_text("utf-8")
    return tuple(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


def published_tables() -> list[tuple[str, str]]:
    """Every ``(paper, table)`` with published records, in file order."""
    return list(dict.fromkeys((r["paper"], r["table"]) for r in load_published()))


def row_labels(table: pd.DataFrame) -> tuple[list, bool]:
    """Each row's label as the records name it, and whether the table has tasks as rows
    (models as columns), so that `models_as_rows` transposes it.

    * ARO Table 6 (``(section, task)`` rows) and ARO Table 2 (``relation`` rows): the task.
    * Robustness tables (`vlcomp.report.robustness`: ``(gallery, "strategy / model")`` rows,
      level ``row``): one flat label ``"gallery / strategy / model"``; read from csv with one
      index column (``row`` then a column) they are flattened the same way.
    * Any other table: its index as it is.
    """
    names = list(table.index.names or [])
    if "task" in names:
        level = names.index("task")
        return [k[level] if isinstance(k, tuple) else k for k in table.index], True
    if names == ["relation"]:
        return list(table.index), True
    if table.index.nlevels > 1 and names[-1] == "row":
        return [" / ".join(map(str, key)) for key in table.index], False
    if table.index.nlevels == 1 and "row" in table.columns:
        return [f"{section} / {row}" for section, row in
                zip(table.index, table["row"], strict=True)], False
    return list(table.index), False


def models_as_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Our tables with models as rows, as the records have them (rows named by
    `row_labels`; tables with tasks as rows transposed)."""
    labels, transposed = row_labels(table)
    if transposed:
        return table.set_axis(pd.Index(labels, name=table.index.names[-1])).T
    if labels == list(table.index):
        return table
    return table.drop(columns="row", errors="ignore").set_axis(pd.Index(labels, name="row"))


def published_only_reason(row: str, published_only: Mapping[str, str] | None) -> str | None:
    """Why a published row is not reproduced (config ``published_only``), matched by the
    whole row, its model (the last part of ``"gallery / strategy / model"``), or the name
    before a parenthesised variant (``ShowTell (XE)`` -> ``ShowTell``)."""
    table = published_only or {}
    model = row.rsplit(" / ", 1)[-1]
    for name in (row, model, model.split(" (", 1)[0]):
        if name in table:
            return table[name]
    return None


def side_by_side(
    ours: pd.DataFrame, records: Sequence[dict[str, Any]],
    aliases: dict[str, str] | None = None,
    counterparts: Mapping[str, Sequence[str]] | None = None,
    published_only: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per published cell and reproduced row facing it, grouped by published row:
    the published value, ours (NaN where we have no such row or column), their difference,
    and where the published value was read. ``counterparts`` maps a published row to our
    rows that reproduce it (`vlcomp.report.coverage.published_counterparts`; default: the
    row of the same name); a cell with several (a released checkpoint and our retrained
    model) gets a line for each, ``ours`` naming the row. ``aliases`` maps a published column
    to ours where the names differ (`WORLD_ALIASES`). ``published_only`` maps a published row
    that cannot be reproduced here to the reason (config ``published_only``): its cells
    without a reproduced value say so in ``note``."""
    ours = models_as_rows(ours)
    aliases = aliases or {}
    rows = []
    for record in records:
        column = record["column"]
        mine_column = column if column in ours.columns else aliases.get(column, column)
        for row, value in record["rows"].items():
            facing = list((counterparts or {}).get(row, [row])) or [row]
            for mine_row in facing:
                mine = np.nan
                if mine_row in ours.index and mine_column in ours.columns:
                    mine = float(ours.loc[mine_row, mine_column])
                reason = published_only_reason(row, published_only)
                note = f"published only: {reason}" if np.isnan(mine) and reason else ""
                rows.append({"row": row, "ours": mine_row, "column": column,
                             "published": float(value), "reproduced": mine,
                             "difference": mine - float(value), "source": record["source"],
                             "note": note})
    out = pd.DataFrame(rows, columns=COLUMNS)
    # group by model (first appearance order), columns in the records' order within each
    order = pd.Categorical(out.row, categories=list(dict.fromkeys(out.row)))
    out = out.iloc[np.argsort(order.codes, kind="stable")]
    return out.set_index(["row", "column"])
