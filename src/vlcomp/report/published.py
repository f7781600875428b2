"""The papers' reported numbers (``published.yaml``) beside the reproduced ones."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd
import yaml

COLUMNS = ["row", "column", "published", "reproduced", "difference", "source"]


def load_published(paper: str | None = None, table: str | None = None) -> list[dict[str, Any]]:
    """Records ``{paper, table, rows: {row: value}, column, source}``, optionally filtered."""
    text = resources.files("vlcomp.report").joinpath("published.yaml").read_text("utf-8")
    records = yaml.safe_load(text)
    return [r for r in records
            if (paper is None or r["paper"] == paper) and (table is None or r["table"] == table)]


def models_as_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Our tables with models as rows (ARO Table 6 has tasks as rows: transpose it)."""
    if "task" in (table.index.names or []):
        flat = table.droplevel([n for n in table.index.names if n != "task"])
        return flat.T
    return table


def side_by_side(ours: pd.DataFrame, records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per published cell, grouped by model: published value, ours (NaN where we have
    no such row or column), their difference, and where the published value was read."""
    ours = models_as_rows(ours)
    rows = []
    for record in records:
        column = record["column"]
        for row, value in record["rows"].items():
            mine = np.nan
            if row in ours.index and column in ours.columns:
                mine = float(ours.loc[row, column])
            rows.append({"row": row, "column": column, "published": float(value),
                         "reproduced": mine, "difference": mine - float(value),
                         "source": record["source"]})
    out = pd.DataFrame(rows, columns=COLUMNS)
    # group by model (first appearance order), columns in the records' order within each
    order = pd.Categorical(out.row, categories=list(dict.fromkeys(out.row)))
    out = out.iloc[np.argsort(order.codes, kind="stable")]
    return out.set_index(["row", "column"])
