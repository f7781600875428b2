"""One model's cells beside every published number they face: each table with published
records (`vlcomp.report.published.COMPARED`), the model's row set against every published row
of the same column (``vlcomp evaluate``'s page for a model of one's own, which plays no paper
model and so has no ``_vs_published`` line of its own)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from vlcomp.report.published import side_by_side

ROW_PARTS = " / "  # robustness rows: "gallery / strategy / model"


def facing_rows(records: Sequence[dict[str, Any]], label: str) -> dict[str, list[str]]:
    """Each published row → the model's row facing it: ``label``, or for a composite row
    (``gallery / strategy / model``) the same gallery and strategy with ``label``."""
    out: dict[str, list[str]] = {}
    for record in records:
        for row in record["rows"]:
            parts = str(row).split(ROW_PARTS)
            out[row] = [ROW_PARTS.join([*parts[:-1], label])]
    return out


def model_beside_published(label: str, tables: Mapping[str, tuple[pd.DataFrame, list]],
                           aliases: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The published cells the model ``label`` has a value for, table by table (``tables``:
    key → our table, its published records), indexed by table and published row: the
    column, the published value, the model's, their difference and the source. Empty when
    the model has no cell any record faces."""
    parts = []
    for key, (ours, records) in tables.items():
        if not records:
            continue
        table = side_by_side(ours, records, dict(aliases or {}), facing_rows(records, label))
        table = table[table.reproduced.notna()].drop(columns=["ours", "note"], errors="ignore")
        if len(table):
            parts.append(pd.concat({key: table}, names=["table"]))
    if not parts:
        return pd.DataFrame(columns=["column", "published", label],
                            index=pd.MultiIndex.from_tuples([], names=["table",
                                                                       "published row"]))
    out = pd.concat(parts).reset_index("column").rename(columns={"reproduced": label})
    return out.rename_axis(["table", "published row"])
