"""Each paper table's companion with confidence intervals.

``{table}_ci.csv`` has one row per number of the table: its value, its bootstrap CI over
test items and its spread over seeds (as the table's ``± sd``), found by
`vlcomp.report.intervals.CellIntervals`; a number without a CI says why in ``note``
(counts and chance levels are exact). ``{table}_ci.md`` shows the table in its own layout
with ``value [low, high]`` cells.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vlcomp.benchmarks.bivlc import REMOVED_ROW
from vlcomp.report.intervals import CHANCE_ROWS, CellIntervals
from vlcomp.report.published import row_labels
from vlcomp.report.summary import MATCH_TOLERANCE, cell, decimals_of
from vlcomp.report.tables import MD_DECIMALS, SAMPLES_COLUMN, STD_SUFFIX, _is_std, to_markdown
from vlcomp.report.visualgptscore_appendix import COUNT_SUFFIX

CI_COLUMNS = ["row", "column", "value", "ci_low", "ci_high", "seed_sd", "note"]
BEST_ROW = "Best discriminative"  # VisualGPTScore Table 1: the best model of each column
NO_INTERVAL = "no interval"
EXACT_NOTES = ("exact: chance level", "count", "exact: counts of released sets")


@dataclass(frozen=True)
class TableCell:
    """One number of a paper table: where it sits (row ``position``, ``column`` of the table
    as written) and how lookups name it (``row`` = model label, ``metric`` = column, as
    `vlcomp.report.published.models_as_rows` orients every table)."""

    position: int
    column: str
    row: str
    metric: str
    value: float
    spread: float  # the table's ``X std`` beside it (NaN when none)


def value_columns(table: pd.DataFrame) -> list[str]:
    """The table's number columns: not ``X std`` companions, not a robustness ``row`` label."""
    columns = [str(c) for c in table.columns]
    return [c for c in columns if c != "row" and not _is_std(c, columns)]


def table_cells(table: pd.DataFrame) -> list[TableCell]:
    """Every finite number of a paper table read back from its csv, named as
    `models_as_rows` orients it (`row_labels`): ARO Tables 2 and 6 (tasks as rows) are
    transposed; robustness tables' rows are ``"section / row"``."""
    labels, transposed = row_labels(table)
    columns = value_columns(table)
    cells = []
    records = table.to_dict("records")
    for position, (label, record) in enumerate(zip(labels, records, strict=True)):
        for column in columns:
            value = record[column]
            if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                    or not np.isfinite(value):
                continue
            spread = record.get(column + STD_SUFFIX, np.nan)
            spread = float(spread) if isinstance(spread, numbers.Real) else np.nan
            row, metric = (column, str(label)) if transposed else (str(label), column)
            cells.append(TableCell(position, column, row, metric, float(value), spread))
    return cells


def exact_note(table_name: str, row: str, metric: str, released: bool = False) -> str | None:
    """Why a number needs no interval: a chance level, or a count (``# Samples``, BiVLC
    Table 1's examples, VisualGPTScore Table 13's items per tag, BISON section 6's ties;
    ``released``: BiVLC
    Table 1's removal rates compare two released sets, whose items do not match)."""
    if row in CHANCE_ROWS:
        return EXACT_NOTES[0]
    if SAMPLES_COLUMN in (row, metric) or (table_name == "bivlc/table1" and row != REMOVED_ROW) \
            or (table_name == "visualgptscore/table13" and metric.endswith(COUNT_SUFFIX)) \
            or (table_name == "bison/section6" and metric == "ties"):
        return EXACT_NOTES[1]
    if released and table_name == "bivlc/table1":
        return EXACT_NOTES[2]
    return None


def interval_table(table_name: str, table: pd.DataFrame, lookup: CellIntervals,
                   best_of: Sequence[str] = (), released: bool = False) -> pd.DataFrame:
    """One row per number of ``table`` (`CI_COLUMNS`). ``best_of``: the rows that
    `BEST_ROW` picks its maximum from (its CI is that row's, noted); ``released``: see
    `exact_note`. Raises ValueError when an interval's value is not the table's number (the
    two were computed apart)."""
    cells = table_cells(table)
    values = {(c.row, c.metric): c.value for c in cells}
    records = []
    for c in cells:
        note = exact_note(table_name, c.row, c.metric, released)
        found = None
        if note is None:
            found = lookup.find(table_name, c.row, c.metric)
            if found is None and c.row == BEST_ROW:
                best = [r for r in best_of if values.get((r, c.metric)) == c.value]
                if best:
                    found = lookup.find(table_name, best[0], c.metric)
                    note = f"CI of {best[0]}"
            if found is None:
                note = NO_INTERVAL
            elif abs(found[0] - c.value) > MATCH_TOLERANCE:
                raise ValueError(
                    f"{table_name}: {c.row} / {c.metric} is {c.value} in the table but "
                    f"{found[0]} in {lookup.source(table_name, c.metric)}")
        spread = c.spread if np.isfinite(c.spread) else (found[3] if found else None)
        records.append({"row": c.row, "column": c.metric, "value": c.value,
                        "ci_low": found[1] if found else np.nan,
                        "ci_high": found[2] if found else np.nan,
                        "seed_sd": np.nan if spread is None else spread,
                        "note": note or ""})
    return pd.DataFrame(records, columns=CI_COLUMNS)


def interval_markdown(table: pd.DataFrame, intervals: pd.DataFrame,
                      confidence: float = 0.95) -> str:
    """The table in its own layout with ``value [low, high]`` cells (``sd x`` where the
    table shows ``± x``); exact numbers as they are, a number without a CI marked."""
    found = {(r.row, r.column): r for r in intervals.itertuples()}
    columns = value_columns(table)
    text = pd.DataFrame("-", index=table.index, columns=columns, dtype=object)
    for c in table_cells(table):
        r = found[c.row, c.metric]
        decimals = max(decimals_of(c.metric), MD_DECIMALS)  # α* keeps its three
        sd = None if pd.isna(r.seed_sd) else float(r.seed_sd)
        if np.isfinite(r.ci_low):
            shown = cell(c.value, r.ci_low, r.ci_high, sd, decimals=decimals)
        elif r.note in EXACT_NOTES:
            shown = str(int(c.value)) if float(c.value).is_integer() and r.note == "count" \
                else f"{c.value:.{decimals}f}"
        else:
            shown = f"{c.value:.{decimals}f} (no CI)"
        text.iloc[c.position, columns.index(c.column)] = shown
    if "row" in table.columns:  # robustness tables: (section, row) as the tables show them
        text.index = pd.MultiIndex.from_arrays([table.index, table["row"]],
                                               names=[table.index.name, "row"])
    notes = sorted({n for n in intervals.note if n.startswith("CI of ")})
    level = f"{confidence * 100:g} %"
    lines = [f"Each number with its {level} bootstrap CI over test items; `sd` is the spread "
             "the table shows as ± (over training seeds, perturbation seeds or validation "
             "splits). Counts and chance levels are exact.", ""]
    lines.append(to_markdown(text))
    if notes:
        lines += ["", f"{BEST_ROW}: each column's interval is its best model's "
                  f"({', '.join(n.removeprefix('CI of ') for n in notes)})."]
    return "\n".join(lines).rstrip("\n") + "\n"
