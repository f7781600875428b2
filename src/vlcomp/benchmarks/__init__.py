"""Benchmark builders: items in the common choice schema (DESIGN §4)."""

from vlcomp.benchmarks.schema import CHOICE_COLUMNS, make_items

__all__ = ["CHOICE_COLUMNS", "make_items"]
