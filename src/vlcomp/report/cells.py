"""The interval of one table cell, and a table's cells by (table, row, column)."""

from __future__ import annotations

Interval = tuple[float, float, float, float | None]  # value, CI low, CI high, seed sd
Cells = dict[tuple[str, str, str], Interval]
